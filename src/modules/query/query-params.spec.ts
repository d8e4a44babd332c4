import { ROUTES } from '@legwork/protocol';
import { compileQuery } from '../../common/http/declared-routes';

/** `limit` is checked by the route's declaration alone (the service only reads it): 1 to 1000, canonical decimal text. */
describe.each(['query.rfq-positions', 'query.rfq-fills'] as const)('%s limit', (name) => {
  const parse = compileQuery(ROUTES[name]);

  it.each(['1', '99', '500', '999', '1000'])('accepts %s', (limit) => {
    expect(parse({ limit })).toEqual({ limit });
  });

  it.each(['0', '01', '1001', '5000', '9999', '10000', '-1', '1.5', 'ten', ''])('refuses %j with the contract message', (limit) => {
    expect(() => parse({ limit })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS', message: 'limit must be an integer from 1 to 1000' }));
  });

  it('refuses a repeated parameter and one the route does not take', () => {
    expect(() => parse({ limit: ['1', '2'] })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS', message: 'limit must be an integer from 1 to 1000' }));
    expect(() => parse({ cursor: '1' })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS', message: 'cursor: property cursor should not exist' }));
  });
});
