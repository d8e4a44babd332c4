import { StatementNames, refusalReason } from './sql';

describe('StatementNames', () => {
  it('names a text from its third call on, the same name every time', () => {
    const names = new StatementNames(10, 3);
    expect(names.nameOf('SELECT 1')).toBeUndefined();
    expect(names.nameOf('SELECT 1')).toBeUndefined();
    const name = names.nameOf('SELECT 1');
    expect(name).toBeDefined();
    expect(names.nameOf('SELECT 1')).toBe(name);
    expect(names.nameOf('SELECT 2')).toBeUndefined();
  });

  it('gives distinct texts distinct names', () => {
    const names = new StatementNames(10, 1);
    expect(names.nameOf('SELECT 1')).not.toBe(names.nameOf('SELECT 2'));
  });

  it('names at most `max` texts: the rest run unnamed, the named keep their names', () => {
    const names = new StatementNames(2, 1);
    const a = names.nameOf('a');
    const b = names.nameOf('b');
    for (let i = 0; i < 5; i++) expect(names.nameOf(`dynamic ${i}`)).toBeUndefined();
    expect(names.size).toBe(2);
    expect([names.nameOf('a'), names.nameOf('b')]).toEqual([a, b]);
  });

  it('bounds the texts it counts: a flood of one-off texts is forgotten, not kept', () => {
    const names = new StatementNames(2, 2);
    for (let i = 0; i < 100; i++) names.nameOf(`one-off ${i}`);
    expect(names.size).toBe(0);
    expect((names as unknown as { seen: Map<string, number> }).seen.size).toBeLessThanOrEqual(8);
  });
});

describe('refusalReason', () => {
  it('reads the SQLSTATE of the driver error a failed statement carries', () => {
    expect(refusalReason({ driverError: { code: 'LW001', message: 'client_ref taken' } })).toBe('client_ref taken');
    expect(refusalReason({ driverError: { code: '23505', message: 'duplicate' } })).toBeNull();
  });
});
