import { AppError } from '../../common/errors/app-error';
import { parseRoles } from './accounts.service';

describe('parseRoles', () => {
  it('accepts known roles, each once, and no role at all', () => {
    expect(parseRoles([])).toEqual([]);
    expect(parseRoles(['taker', 'quoter', 'admin'])).toEqual(['taker', 'quoter', 'admin']);
  });

  it.each([[['trader']], [['taker', 'taker']], ['taker'], [[1]], [null], [{}]])('refuses %j', (roles) => {
    expect(() => parseRoles(roles)).toThrow(AppError);
  });
});
