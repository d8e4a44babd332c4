import { createSecretKey, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { ROLES, type Principal, type Role } from './access';

export interface SessionClaims {
  sub: string;
  account_id: number | null;
  roles: Role[];
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
}

const VERIFIED_TOKENS_MAX = 10_000;

/**
 * Session tokens: JWT HS256 with iss = aud = SERVICE_NAME (design.md section 3). Verification
 * pins the algorithm and requires exp, iss and aud; any other alg (none included) is refused.
 */
@Injectable()
export class SessionService {
  private readonly jwt: JwtService;
  /**
   * Tokens verified already, until their `exp`: a bot's bearer token is checked once, not on every
   * request (the HMAC and claim parsing were most of an authenticated read's CPU, bench F1a).
   * Bounded; the oldest entry goes first. Tokens are never revoked before `exp` (design.md 3).
   */
  private readonly verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a PEM
    // key (createPublicKey / createPrivateKey, which throw) on every sign and verify: about 40 %
    // of the CPU of an authenticated HTTP read (bench/README.md). Same HMAC key bytes (UTF-8).
    this.jwt = new JwtService({ secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) });
  }

  issue(wallet: string, accountId: number | null, roles: Role[]): string {
    return this.jwt.sign(
      { account_id: accountId, roles, scope: roles.includes('admin') ? 'admin:*' : '' },
      {
        algorithm: 'HS256',
        subject: wallet,
        issuer: this.config.serviceName,
        audience: this.config.serviceName,
        expiresIn: this.config.sessionTtlSeconds,
        jwtid: randomUUID(),
      },
    );
  }

  /** The token's principal, or SESSION_INVALID (bad, tampered, expired, other service, other alg). */
  verify(token: unknown): Principal {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw new AppError('SESSION_INVALID', 'session token is invalid');
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAtMs > Date.now()) return known.principal;
      this.verified.delete(token);
    }
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
      typeof claims.sub === 'string' &&
      (claims.account_id === null || Number.isSafeInteger(claims.account_id)) &&
      Array.isArray(claims.roles) &&
      claims.roles.every((r) => (ROLES as readonly string[]).includes(r)) &&
      typeof claims.scope === 'string';
    if (!shapeOk) throw new AppError('SESSION_INVALID', 'session token is invalid');
    const principal: Principal = Object.freeze({
      via: 'session' as const,
      wallet: claims.sub,
      accountId: claims.account_id,
      roles: Object.freeze([...claims.roles]) as Role[],
      scopes: Object.freeze(claims.scope.split(' ').filter(Boolean)) as string[],
    });
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { principal, expiresAtMs: claims.exp * 1000 });
    return principal;
  }
}
