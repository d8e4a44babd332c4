import { ADMIN_TOKEN_PRINCIPAL, type Principal } from '../../common/access/access';
import { selectAccount } from './account-selector';

const session = (over: Partial<Principal>): Principal => ({ via: 'session', wallet: 'w', accountId: 5, roles: [], scopes: [], ...over });
const err = (code: string, message: RegExp) => expect.objectContaining({ code, message: expect.stringMatching(message) });

describe('selectAccount', () => {
  it('an account session reads its own account, named or not', () => {
    expect(selectAccount(session({}), undefined)).toBe(5);
    expect(selectAccount(session({}), '5')).toBe(5);
  });

  it('an account session may not name another account', () => {
    expect(() => selectAccount(session({}), '6')).toThrow(err('FORBIDDEN', /not the account of this token/));
    expect(() => selectAccount(session({ roles: ['taker', 'quoter'], scopes: ['admin:deposit'] }), '0')).toThrow(err('FORBIDDEN', /not the account/));
  });

  it('an admin reader may name any account', () => {
    for (const reader of [session({ roles: ['admin'] }), session({ scopes: ['admin:*'] }), session({ scopes: ['admin:read'] }), ADMIN_TOKEN_PRINCIPAL]) {
      expect(selectAccount(reader, '6')).toBe(6);
      expect(selectAccount(reader, '0')).toBe(0);
    }
  });

  it('an admin reader with an account reads its own by default', () => {
    expect(selectAccount(session({ roles: ['admin'] }), undefined)).toBe(5);
  });

  it('an admin reader without an account must name one', () => {
    expect(() => selectAccount(ADMIN_TOKEN_PRINCIPAL, undefined)).toThrow(err('INVALID_PARAMS', /account_id is required/));
    expect(() => selectAccount(session({ accountId: null, scopes: ['admin:read'] }), undefined)).toThrow(err('INVALID_PARAMS', /required/));
  });

  it('a token without an account that is no admin reader is refused, named account or not', () => {
    expect(() => selectAccount(session({ accountId: null }), undefined)).toThrow(err('FORBIDDEN', /no account/));
    expect(() => selectAccount(session({ accountId: null }), '5')).toThrow(err('FORBIDDEN', /no account/));
  });

  it.each(['-1', '01', '1.0', '1e2', '', ' 1', '9007199254740992'])('refuses account_id %j', (text) => {
    expect(() => selectAccount(ADMIN_TOKEN_PRINCIPAL, text)).toThrow(err('INVALID_PARAMS', /integer >= 0/));
  });
});
