import { loadConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { SessionService } from './session.service';

describe('SessionService', () => {
  afterEach(() => jest.useRealTimers());
  const service = (ttl = '60') => new SessionService(loadConfig({ JWT_SECRET: 'k'.repeat(40), SESSION_TTL_SECONDS: ttl }));

  it('verifies a token once and then serves it from the cache, frozen', () => {
    const sessions = service();
    const token = sessions.issue('W', 7, ['taker']);
    const first = sessions.verify(token);
    expect(first).toEqual({
      via: 'session',
      wallet: 'W',
      accountId: 7,
      roles: ['taker'],
      scopes: [],
      issuedAt: expect.any(Number),
      expiresAt: expect.any(Number),
    });
    expect(sessions.verify(token)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.roles)).toBe(true);
  });

  it('refuses a cached token once its exp has passed', () => {
    jest.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
    const sessions = service('1');
    const token = sessions.issue('W', 7, ['taker']);
    expect(sessions.verify(token).accountId).toBe(7);
    jest.setSystemTime(new Date('2026-11-22T10:00:02Z'));
    expect(() => sessions.verify(token)).toThrow(AppError);
    expect(() => sessions.verify(token)).toThrow('expired');
  });

  it('never caches a refused token', () => {
    const sessions = service();
    const token = sessions.issue('W', 7, []);
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    expect(() => sessions.verify(tampered)).toThrow(AppError);
    expect(() => sessions.verify(tampered)).toThrow(AppError);
  });
});

describe('SessionService.principalOf', () => {
  it('gives the principal the issued token would verify to, without caching the token', () => {
    const sessions = new SessionService(loadConfig({ JWT_SECRET: 'k'.repeat(40) }));
    const token = sessions.issue('W', 3, ['admin', 'quoter']);
    const direct = sessions.principalOf({ wallet: 'W', account_id: 3, roles: ['admin', 'quoter'], session_token: token });
    const now = Math.floor(Date.now() / 1000);
    expect(direct).toEqual({
      via: 'session',
      wallet: 'W',
      accountId: 3,
      roles: ['admin', 'quoter'],
      scopes: ['admin:*'],
      issuedAt: expect.any(Number),
      expiresAt: expect.any(Number),
    });
    expect(Math.abs(direct.issuedAt! - now)).toBeLessThanOrEqual(1);
    expect(direct.expiresAt! - direct.issuedAt!).toBe(86400);
    expect(sessions.verify(token)).toEqual(direct);
  });

  it('issues no earlier than notBefore (a token after a revoke in the same second)', () => {
    const sessions = new SessionService(loadConfig({ JWT_SECRET: 'k'.repeat(40) }));
    const later = Math.floor(Date.now() / 1000) + 1;
    expect(sessions.verify(sessions.issue('W', 3, ['taker'], later)).issuedAt).toBe(later);
  });
});

describe('SessionService: a session ends SESSION_MAX_SECONDS after its wallet signature', () => {
  afterEach(() => jest.useRealTimers());
  const service = (max: string, ttl = '60') =>
    new SessionService(loadConfig({ JWT_SECRET: 'k'.repeat(40), SESSION_TTL_SECONDS: ttl, SESSION_MAX_SECONDS: max }));
  const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { iat: number; exp: number; auth_time: number };
  const T0 = Date.parse('2026-11-22T10:00:00Z') / 1000;

  it('issues exp = min(iat + TTL, auth_time + MAX), auth_time the signature (now) unless kept', () => {
    jest.useFakeTimers({ now: T0 * 1000 });
    const sessions = service('100');
    expect(claims(sessions.issue('W', 7, []))).toMatchObject({ iat: T0, exp: T0 + 60, auth_time: T0 });
    expect(claims(sessions.issue('W', 7, [], 0, T0 - 70))).toMatchObject({ iat: T0, exp: T0 + 30, auth_time: T0 - 70 });
    expect(() => sessions.issue('W', 7, [], 0, T0 - 100)).toThrow('SESSION_MAX_SECONDS');
  });

  it('resumable gives the kept auth_time; a token without one counts from its iat', () => {
    jest.useFakeTimers({ now: T0 * 1000 });
    const sessions = service('100');
    expect(sessions.resumable(sessions.issue('W', 7, [], 0, T0 - 5)).authTime).toBe(T0 - 5);
    const { principal, authTime } = sessions.resumable(sessions.issue('W', null, []));
    expect(authTime).toBe(T0);
    expect(principal).toMatchObject({ wallet: 'W', accountId: null, issuedAt: T0, expiresAt: T0 + 60 });
  });

  it('refuses a token past auth_time + SESSION_MAX_SECONDS even when its exp is later (the limit was lowered)', () => {
    jest.useFakeTimers({ now: T0 * 1000 });
    const token = service('1000', '1000').issue('W', 7, []);
    jest.setSystemTime((T0 + 11) * 1000);
    expect(service('1000', '1000').verify(token).accountId).toBe(7);
    expect(() => service('10', '1000').verify(token)).toThrow('expired');
    expect(() => service('10', '1000').resumable(token)).toThrow('expired');
  });
});
