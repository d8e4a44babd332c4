import { ADMIN_TOKEN_PRINCIPAL, type Principal, checkAccess, currentPrincipal } from './access';

const session = (over: Partial<Principal>): Principal => ({ via: 'session', wallet: 'w', accountId: 1, roles: [], scopes: [], ...over });

describe('checkAccess', () => {
  it('public is open to all', () => expect(checkAccess({ kind: 'public' }, null)).toBeNull());
  it('account needs a session with an account and the role', () => {
    expect(checkAccess({ kind: 'account' }, null)).toBe('AUTH_REQUIRED');
    expect(checkAccess({ kind: 'account' }, session({ accountId: null }))).toBe('FORBIDDEN');
    expect(checkAccess({ kind: 'account' }, session({}))).toBeNull();
    expect(checkAccess({ kind: 'account', role: 'quoter' }, session({ roles: ['taker'] }))).toBe('FORBIDDEN');
    expect(checkAccess({ kind: 'account', role: 'quoter' }, session({ roles: ['quoter'] }))).toBeNull();
  });
  it('admin: token, role, admin:* or the exact command scope', () => {
    const admin = { kind: 'admin', command: 'create-instruments' } as const;
    expect(checkAccess(admin, null)).toBe('AUTH_REQUIRED');
    expect(checkAccess(admin, ADMIN_TOKEN_PRINCIPAL)).toBeNull();
    expect(checkAccess(admin, session({ roles: ['admin'] }))).toBeNull();
    expect(checkAccess(admin, session({ scopes: ['admin:*'] }))).toBeNull();
    expect(checkAccess(admin, session({ scopes: ['admin:create-instruments'] }))).toBeNull();
    expect(checkAccess(admin, session({ scopes: ['admin:pause-by-expiration'] }))).toBe('FORBIDDEN');
    expect(checkAccess({ kind: 'admin', command: 'read' }, session({ scopes: ['admin:read'] }))).toBeNull();
    expect(checkAccess(admin, session({ scopes: ['admin:read'] }))).toBe('FORBIDDEN');
  });
});

describe('reader access (query routes)', () => {
  it('takes an account session or an admin reader, nothing else', () => {
    expect(checkAccess({ kind: 'reader' }, null)).toBe('AUTH_REQUIRED');
    expect(checkAccess({ kind: 'reader' }, session({ accountId: null }))).toBe('FORBIDDEN');
    expect(checkAccess({ kind: 'reader' }, session({}))).toBeNull();
    expect(checkAccess({ kind: 'reader' }, session({ accountId: null, scopes: ['admin:read'] }))).toBeNull();
    expect(checkAccess({ kind: 'reader' }, ADMIN_TOKEN_PRINCIPAL)).toBeNull();
  });
});

describe('currentPrincipal (design.md section 10)', () => {
  const token = session({ roles: ['quoter', 'admin'], scopes: ['admin:*'], issuedAt: 1000, expiresAt: 2000 });
  const at = (seconds: number) => seconds * 1000;

  it('acts with the account roles as they are now, not the token claim', () => {
    const now = currentPrincipal(token, { roles: ['taker'], revokedAt: 0 }, at(1500)) as Principal;
    expect(now.roles).toEqual(['taker']);
    expect(now.scopes).toEqual([]); // admin:* went with the admin role
    expect(checkAccess({ kind: 'account', role: 'quoter' }, now)).toBe('FORBIDDEN');
    expect(checkAccess({ kind: 'admin', command: 'roles' }, now)).toBe('FORBIDDEN');
    expect(currentPrincipal(token, { roles: ['admin', 'quoter'], revokedAt: 0 }, at(1500))).toBe(token);
  });

  it('a token issued at or before the revoke is revoked; one after is not', () => {
    expect(currentPrincipal(token, { roles: ['quoter'], revokedAt: 1000 }, at(1500))).toBe('revoked');
    expect(currentPrincipal(token, { roles: ['quoter'], revokedAt: 999 }, at(1500))).not.toBe('revoked');
  });

  it('lapses at exp', () => {
    expect(currentPrincipal(token, { roles: ['quoter'], revokedAt: 0 }, at(2000))).toBe('expired');
    expect(currentPrincipal(token, { roles: ['quoter'], revokedAt: 0 }, at(2000) - 1)).not.toBe('expired');
  });
});
