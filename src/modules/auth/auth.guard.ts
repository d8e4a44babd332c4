import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError, withoutStack } from '../../common/errors/app-error';
import { clientIp } from '../../common/http/client-ip';
import { PublicRateLimit, QueryRateLimit } from '../../common/rate-limit/public-rate-limit';
import { AccountAccessService } from '../accounts/account-access.service';
import { ACCESS, ADMIN_TOKEN_PRINCIPAL, type Access, type AuthenticatedRequest, type Lapse, type Principal, checkAccess } from '../../common/access/access';
import { SessionService } from './session.service';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The one HTTP guard: reads the route's declared Access and the bearer credential. A route that
 * declares nothing is refused (and a test lists every route's declaration).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly adminDigest: Buffer | null;

  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    private readonly access: AccountAccessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly publicLimit: PublicRateLimit,
    private readonly queryLimit: QueryRateLimit,
  ) {
    this.adminDigest = config.adminToken ? digest(config.adminToken) : null;
    // The cache of verified tokens never outlives a revoke.
    access.onChange((accountId, state) => {
      if (state.revokedAt > 0) sessions.forgetAccount(accountId);
    });
  }

  /** Each handler's declared access, read from its metadata once. */
  private readonly accessOf = new WeakMap<object, Access | undefined>();

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const handler = context.getHandler();
    let access = this.accessOf.get(handler);
    if (access === undefined && !this.accessOf.has(handler)) {
      access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, context.getClass()]);
      this.accessOf.set(handler, access);
    }
    if (!access) throw new AppError('FORBIDDEN', 'this route declares no access rule');
    if (access.kind === 'public') return true;
    return this.authorize(access, context.switchToHttp().getRequest<AuthenticatedRequest>());
  }

  /**
   * Decides a request by a route's declared access: sets `request.principal`, or throws the
   * refusal. The routes served straight on Fastify (common/http/declared-routes.ts) call it too.
   */
  authorize(access: Access, request: AuthenticatedRequest): boolean | Promise<boolean> {
    if (access.kind === 'public') return true;
    let token: Principal | null;
    try {
      token = this.authenticate(request.headers.authorization, access);
    } catch (error) {
      // A bearer that does not verify counts against the client IP's public bucket (docs/spec/design.md section 20).
      return this.refusedBearer(request, error);
    }
    // Decided with the account as it is now (docs/spec/design.md section 10): synchronous on a cache hit.
    const current = token && token.via === 'session' ? this.access.current(token) : token;
    const decided = current instanceof Promise ? current.then((p) => this.decide(access, request, p)) : this.decide(access, request, current);
    return request.url.startsWith('/query/') ? this.limitQuery(request, decided) : decided;
  }

  /** The refusal of a bearer that did not verify: 429 when the client IP's public bucket is empty, else the error itself. */
  private async refusedBearer(request: AuthenticatedRequest, error: unknown): Promise<never> {
    const ip = clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
    const admitted = this.publicLimit.admit(ip);
    const wait = typeof admitted === 'number' ? admitted : await admitted;
    if (wait > 0) {
      const { publicRatePerSecond: rate, publicRateBurst: burst } = this.config;
      throw withoutStack(() => new AppError('RATE_LIMITED', `at most ${rate} public requests per second from one address (burst ${burst})`, wait));
    }
    throw error;
  }

  /** `/query/*` of an account: its bucket of authenticated reads (docs/spec/design.md section 20); the admin token is not limited. */
  private async limitQuery(request: AuthenticatedRequest, decided: boolean | Promise<boolean>): Promise<boolean> {
    const allowed = await decided;
    const accountId = request.principal?.accountId;
    if (accountId == null) return allowed;
    const admitted = this.queryLimit.admit(String(accountId));
    const wait = typeof admitted === 'number' ? admitted : await admitted;
    if (wait > 0) {
      const { queryRatePerSecond: rate, queryRateBurst: burst } = this.config;
      throw withoutStack(() => new AppError('RATE_LIMITED', `at most ${rate} reads per second per account (burst ${burst})`, wait));
    }
    return allowed;
  }

  private decide(access: Access, request: AuthenticatedRequest, current: Principal | Lapse | null): boolean {
    if (current === 'revoked') throw new AppError('AUTH_REQUIRED', 'this session has been revoked; sign in again');
    if (current === 'expired') throw new AppError('AUTH_REQUIRED', 'this session has expired; sign in again');
    const principal = current;
    const denial = checkAccess(access, principal);
    if (denial === 'AUTH_REQUIRED') throw new AppError('AUTH_REQUIRED', 'a bearer token is required');
    if (denial === 'FORBIDDEN') throw new AppError('FORBIDDEN', 'this token may not use this route');
    request.principal = principal ?? undefined;
    return true;
  }

  private authenticate(header: string | undefined, access: Access): Principal | null {
    if (!header) return null;
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    if (!match) throw new AppError('AUTH_REQUIRED', 'authorization must be "Bearer <token>"');
    const token = match[1];
    // A session token verified before needs no hashing (the admin token is never a session token).
    const session = this.sessions.remembered(token);
    if (session) return session;
    if (this.adminDigest && (access.kind === 'admin' || access.kind === 'reader') && timingSafeEqual(digest(token), this.adminDigest)) {
      return ADMIN_TOKEN_PRINCIPAL;
    }
    return this.sessions.verify(token);
  }
}
