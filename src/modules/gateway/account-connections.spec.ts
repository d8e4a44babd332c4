import { AccountConnections } from './account-connections';
import type { ClientConnection } from './client-connection';

const connection = (name: string) => ({ name }) as unknown as ClientConnection;

describe('AccountConnections', () => {
  const [a, b, c] = [connection('a'), connection('b'), connection('c')];

  it('holds one connection, then several, in the order they came, per account', () => {
    const index = new AccountConnections();
    expect(index.of(1)).toEqual([]);
    index.add(1, a);
    index.add(2, c);
    expect(index.of(1)).toEqual([a]);
    index.add(1, b);
    expect(index.of(1)).toEqual([a, b]);
    expect(index.of(2)).toEqual([c]);
  });

  it('forgets a connection from one or from several, and the account with its last', () => {
    const index = new AccountConnections();
    index.add(1, a);
    index.add(1, b);
    index.add(1, c);
    index.delete(1, b);
    expect(index.of(1)).toEqual([a, c]);
    index.delete(1, a);
    expect(index.of(1)).toEqual([c]);
    // Back to one: adding again makes two, not an entry of three.
    index.add(1, a);
    expect(index.of(1)).toEqual([c, a]);
    index.delete(1, c);
    index.delete(1, a);
    expect(index.of(1)).toEqual([]);
    index.add(1, b);
    expect(index.of(1)).toEqual([b]);
  });

  it('ignores a connection it does not hold', () => {
    const index = new AccountConnections();
    index.delete(1, a);
    index.add(1, a);
    index.delete(1, b);
    index.delete(2, a);
    expect(index.of(1)).toEqual([a]);
    index.add(1, c);
    index.delete(1, b);
    expect(index.of(1)).toEqual([a, c]);
  });

  it('gives a copy: a connection removed while the list is walked does not skip the next', () => {
    const index = new AccountConnections();
    index.add(1, a);
    index.add(1, b);
    index.add(1, c);
    const seen: ClientConnection[] = [];
    for (const x of index.of(1)) {
      seen.push(x);
      index.delete(1, x);
    }
    expect(seen).toEqual([a, b, c]);
    expect(index.of(1)).toEqual([]);
  });
});
