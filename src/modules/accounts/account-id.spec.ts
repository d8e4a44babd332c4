import { AppError } from '../../common/errors/app-error';
import { parseAccountId } from './account-id';

describe('parseAccountId (path ids)', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('accepts %s', (text, id) => expect(parseAccountId(text)).toBe(id));

  it.each(['0', '-1', '01', '1.0', '1e3', '0x10', ' 1', '1 ', '', 'abc', '9007199254740992', '12345678901234567'])('refuses %j', (text) => {
    expect(() => parseAccountId(text)).toThrow(new AppError('INVALID_PARAMS', 'account_id must be a positive integer'));
  });

  it('refuses non-strings', () => {
    for (const value of [1, null, undefined, ['1']]) expect(() => parseAccountId(value)).toThrow(AppError);
  });
});
