import type * as TraceIds from './trace-ids';

describe('trace ids', () => {
  /** A fresh copy of the module: what another process (another instance, or this one restarted) would load. */
  const loadProcess = () => {
    let ids: typeof TraceIds | undefined;
    jest.isolateModules(() => {
      ids = jest.requireActual<typeof TraceIds>('./trace-ids');
    });
    return ids!;
  };

  it('two processes with the same counters make different ids', () => {
    const one = loadProcess();
    const two = loadProcess();
    const a = Array.from({ length: 100 }, () => one.nextRequestId());
    const b = Array.from({ length: 100 }, () => two.nextRequestId());
    expect(new Set([...a, ...b]).size).toBe(200);
    expect(one.connectionIdOf(1)).not.toBe(two.connectionIdOf(1));
    for (const id of a) expect(id).toMatch(/^[A-Za-z0-9_-]{18,64}$/);
  });

  it("takes the client's id only when it is 1 to 64 characters of [A-Za-z0-9._-]", () => {
    const { requestIdOf } = loadProcess();
    expect(requestIdOf('abc.DEF-1_2')).toBe('abc.DEF-1_2');
    expect(requestIdOf('x'.repeat(64))).toBe('x'.repeat(64));
    for (const bad of [undefined, '', 'x'.repeat(65), 'a b', 'a\nb', ['a', 'b']]) expect(requestIdOf(bad)).not.toBe(bad);
  });
});
