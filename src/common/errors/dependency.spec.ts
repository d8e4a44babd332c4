import { isDependencyDown } from './dependency';

describe('isDependencyDown', () => {
  it('recognises connection failures of pg and ioredis', () => {
    expect(isDependencyDown(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDependencyDown(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe(true);
    expect(isDependencyDown(new Error('Connection is closed.'))).toBe(true);
    expect(isDependencyDown(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
  });
  it('leaves other errors alone', () => {
    expect(isDependencyDown(new Error('duplicate key value'))).toBe(false);
    expect(isDependencyDown('Connection is closed')).toBe(false);
  });
});
