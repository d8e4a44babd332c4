import { SetMetadata } from '@nestjs/common';

export { ROLES, type Role } from '@legwork/protocol';
import type { Role } from '@legwork/protocol';
import type { FastifyRequest } from 'fastify';

/**
 * Who may call a route or a JSON-RPC method. Declared on every route and method (a test fails
 * where one declares nothing); the HTTP guard and the gateway both read it.
 *
 * - `public`: anyone.
 * - `account`: a session of a wallet that has an account, holding `role` when given.
 * - `reader`: an account's session, or an admin reader (role admin, scope `admin:*` or
 *   `admin:read`, or the admin token): the query routes, which then pick the account read.
 * - `admin`: the static admin token, or a session with role admin, scope `admin:*`, or scope
 *   `admin:<command>` (GET routes: `admin:read`).
 */
export type Access = { kind: 'public' } | { kind: 'account'; role?: Role } | { kind: 'reader' } | { kind: 'admin'; command: string };

export const ACCESS = 'legwork:access';

export const Public = () => SetMetadata(ACCESS, { kind: 'public' } satisfies Access);
/** `command`: the last path segment of the route (docs/spec/design.md section 3), or `read` for GET. */
export const AdminAccess = (command: string) => SetMetadata(ACCESS, { kind: 'admin', command } satisfies Access);

/** Who is calling, established by a session token or the admin token. */
export interface Principal {
  via: 'session' | 'admin_token';
  wallet: string | null;
  accountId: number | null;
  roles: Role[];
  scopes: string[];
  /** A session's token `iat` and `exp` (unix seconds); absent for the admin token. */
  issuedAt?: number;
  expiresAt?: number;
}

/** An account's access as it is now in the database (docs/spec/design.md section 10). */
export interface AccountAccessState {
  roles: Role[];
  /** Tokens issued at or before this (unix seconds) are refused; 0: never revoked. */
  revokedAt: number;
}

/** Why a session is no longer signed in. */
export type Lapse = 'expired' | 'revoked';

/**
 * The principal a session acts as now: the token's identity with the account's current roles
 * (the `roles` claim is only what they were at issue), or why it has lapsed. `admin:*` is the
 * admin role's scope: it goes with the role.
 */
export function currentPrincipal(principal: Principal, state: AccountAccessState, nowMs: number): Principal | Lapse {
  if (principal.expiresAt !== undefined && principal.expiresAt * 1000 <= nowMs) return 'expired';
  if (principal.issuedAt !== undefined && principal.issuedAt <= state.revokedAt) return 'revoked';
  const admin = state.roles.includes('admin');
  const sameRoles = principal.roles.length === state.roles.length && principal.roles.every((r) => state.roles.includes(r));
  if (sameRoles && (admin || !principal.scopes.includes('admin:*'))) return principal;
  const scopes = principal.scopes.filter((s) => s !== 'admin:*');
  if (admin) scopes.push('admin:*');
  return Object.freeze({ ...principal, roles: state.roles, scopes });
}

export const ADMIN_TOKEN_PRINCIPAL: Principal = { via: 'admin_token', wallet: null, accountId: null, roles: ['admin'], scopes: ['admin:*'] };

/** docs/spec/design.md section 3: role admin, scope admin:*, or the exact scope admin:<command>. */
export function allowsAdmin(principal: Principal, command: string): boolean {
  return principal.roles.includes('admin') || principal.scopes.includes('admin:*') || principal.scopes.includes(`admin:${command}`);
}

export type AccessDenial = 'AUTH_REQUIRED' | 'FORBIDDEN';

/** null when allowed; otherwise why not (no principal: AUTH_REQUIRED; not enough: FORBIDDEN). */
export function checkAccess(access: Access, principal: Principal | null): AccessDenial | null {
  switch (access.kind) {
    case 'public':
      return null;
    case 'account':
      if (!principal) return 'AUTH_REQUIRED';
      if (principal.accountId === null) return 'FORBIDDEN';
      return access.role && !principal.roles.includes(access.role) ? 'FORBIDDEN' : null;
    case 'reader':
      if (!principal) return 'AUTH_REQUIRED';
      return principal.accountId !== null || allowsAdmin(principal, 'read') ? null : 'FORBIDDEN';
    case 'admin':
      if (!principal) return 'AUTH_REQUIRED';
      return allowsAdmin(principal, access.command) ? null : 'FORBIDDEN';
  }
}

/** An HTTP request the AuthGuard has decided: its caller, unless the route is public. */
export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };
