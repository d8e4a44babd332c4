import { createSecretKey, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { ROLES, type Principal, type Role } from '../../common/access/access';
interface SessionClaims {
  sub: string;
  account_id: number | null;
  roles: Role[];
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** Unix seconds of the wallet signature that began the session (docs/spec/design.md section 16). */
  auth_time?: number;
  iss: string;
  aud: string;
}

const VERIFIED_TOKENS_MAX = 10_000;

/** The scope claim of a session: `admin:*` for the admin role (docs/spec/design.md section 3). */
function scopeOf(roles: readonly Role[]): string {
  return roles.includes('admin') ? 'admin:*' : '';
}

/** Frozen arrays of role or scope names, one per distinct list (sessions share them). */
const internedLists = new Map<string, readonly string[]>();
function interned<T extends string>(list: readonly T[]): T[] {
  const key = list.join(' ');
  let frozen = internedLists.get(key);
  if (!frozen) internedLists.set(key, (frozen = Object.freeze([...list])));
  return frozen as T[];
}

/** A session's principal, frozen (it is shared through the verified-token cache). */
function sessionPrincipal(wallet: string, accountId: number | null, roles: readonly Role[], scope: string, issuedAt: number, expiresAt: number): Principal {
  return Object.freeze({
    via: 'session' as const,
    wallet,
    accountId,
    roles: interned(roles),
    scopes: interned(scope.split(' ').filter(Boolean)),
    issuedAt,
    expiresAt,
  });
}

/**
 * Session tokens: JWT HS256 with iss = aud = SERVICE_NAME (docs/spec/design.md section 3). Verification
 * pins the algorithm and requires exp, iss and aud; any other alg (none included) is refused.
 */
@Injectable()
export class SessionService {
  private readonly jwt: JwtService;
  /**
   * Tokens verified already, until their `exp`: a bot's bearer token is checked once, not on every
   * request (the HMAC and claim parsing were most of an authenticated read's CPU, bench F1a).
   * Bounded; the oldest entry goes first. What a token may do is decided with the account as it is
   * now (AccountAccessService): this cache only saves the signature check, and a revoke empties it of
   * the account's tokens as well.
   */
  private readonly verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a PEM
    // key (createPublicKey / createPrivateKey, which throw) on every sign and verify: about 40 %
    // of the CPU of an authenticated HTTP read (bench/README.md). Same HMAC key bytes (UTF-8).
    this.jwt = new JwtService({ secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) });
  }

  /**
   * `notBefore`: the token's `iat` is at least this (unix seconds): a token issued in the same
   * second as a revoke must not count as issued "at or before" it (docs/spec/design.md section 10).
   * `authTime`: when the wallet signed (a resume keeps it; a sign-in is now): the token ends at
   * `min(iat + SESSION_TTL_SECONDS, authTime + SESSION_MAX_SECONDS)` (section 16), so resuming
   * slides a session only up to SESSION_MAX_SECONDS after its signature.
   */
  issue(wallet: string, accountId: number | null, roles: Role[], notBefore = 0, authTime?: number): string {
    const iat = Math.max(Math.floor(Date.now() / 1000), notBefore);
    const auth = authTime ?? iat;
    const exp = Math.min(iat + this.config.sessionTtlSeconds, auth + this.config.sessionMaxSeconds);
    if (exp <= iat) throw new AppError('SESSION_INVALID', 'session has reached SESSION_MAX_SECONDS since its wallet signature; sign in again');
    return this.jwt.sign(
      { account_id: accountId, roles, scope: scopeOf(roles), iat, exp, auth_time: auth },
      {
        algorithm: 'HS256',
        subject: wallet,
        issuer: this.config.serviceName,
        audience: this.config.serviceName,
        jwtid: randomUUID(),
      },
    );
  }

  /**
   * The principal of a session just issued for these claims (a connection that signed in), without
   * verifying the token again or holding it in the cache.
   */
  principalOf(session: { wallet: string; account_id: number | null; roles: Role[]; session_token: string }): Principal {
    // The token was signed here a moment ago: its times are read, not verified again.
    const claims = JSON.parse(Buffer.from(session.session_token.split('.')[1], 'base64url').toString('utf8')) as SessionClaims;
    return sessionPrincipal(session.wallet, session.account_id, session.roles, scopeOf(session.roles), claims.iat, claims.exp);
  }

  /** Drops the account's tokens from the cache of verified tokens (after a revoke: it must not outlive it). */
  forgetAccount(accountId: number): void {
    for (const [token, known] of this.verified) if (known.principal.accountId === accountId) this.verified.delete(token);
  }

  /** The principal of a token verified already and not expired (the cache of bearer tokens), else null. */
  remembered(token: string): Principal | null {
    const known = this.verified.get(token);
    if (!known) return null;
    if (known.expiresAtMs > Date.now()) return known.principal;
    this.verified.delete(token);
    return null;
  }

  /**
   * The token's principal, or SESSION_INVALID. `remember: false` for a token presented once (a
   * session resume): it is verified but not kept in the cache of bearer tokens.
   * Refused: bad, tampered, expired (at its exp or SESSION_MAX_SECONDS after its auth_time), other service, other alg.
   */
  verify(token: unknown, options: { remember?: boolean } = {}): Principal {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw new AppError('SESSION_INVALID', 'session token is invalid');
    const known = this.remembered(token);
    if (known) return known;
    const { principal } = this.check(token);
    if (options.remember === false) return principal;
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { principal, expiresAtMs: (principal.expiresAt as number) * 1000 });
    return principal;
  }

  /**
   * A token presented for `public/session_resume`: its principal (verified, not cached) and the
   * `auth_time` the new token keeps. A token issued before tokens carried `auth_time` counts from
   * its `iat`: its session still ends, SESSION_MAX_SECONDS after that.
   */
  resumable(token: unknown): { principal: Principal; authTime: number } {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw new AppError('SESSION_INVALID', 'session token is invalid');
    return this.check(token);
  }

  private check(token: string): { principal: Principal; authTime: number } {
    let claims: SessionClaims;
    try {
      claims = this.jwt.verify<SessionClaims>(token, {
        algorithms: ['HS256'],
        issuer: this.config.serviceName,
        audience: this.config.serviceName,
      });
    } catch (error) {
      const expired = (error as Error).name === 'TokenExpiredError';
      throw new AppError('SESSION_INVALID', expired ? 'session token has expired' : 'session token is invalid');
    }
    const shapeOk =
      typeof claims.exp === 'number' &&
      typeof claims.iat === 'number' &&
      (claims.auth_time === undefined || Number.isSafeInteger(claims.auth_time)) &&
      typeof claims.sub === 'string' &&
      (claims.account_id === null || Number.isSafeInteger(claims.account_id)) &&
      Array.isArray(claims.roles) &&
      claims.roles.every((r) => (ROLES as readonly string[]).includes(r)) &&
      typeof claims.scope === 'string';
    if (!shapeOk) throw new AppError('SESSION_INVALID', 'session token is invalid');
    const authTime = claims.auth_time ?? claims.iat;
    // SESSION_MAX_SECONDS bounds a token's life even if it was issued under a longer one.
    const end = Math.min(claims.exp, authTime + this.config.sessionMaxSeconds);
    if (end * 1000 <= Date.now()) throw new AppError('SESSION_INVALID', 'session token has expired');
    return { principal: sessionPrincipal(claims.sub, claims.account_id, claims.roles, claims.scope, claims.iat, end), authTime };
  }
}
