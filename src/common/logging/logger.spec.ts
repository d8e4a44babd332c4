import { JsonLogger, LineBatch } from './logger';

describe('LineBatch', () => {
  it('writes the lines of one turn in one write, in order', async () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text));
    batch.push('a');
    batch.push('b');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\n']);
    batch.push('c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('an urgent line goes out at once with what waits; a full batch too', () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text), 3);
    batch.push('info');
    batch.push('error', true);
    expect(writes).toEqual(['info\nerror\n']);
    for (const line of ['1', '2', '3']) batch.push(line);
    expect(writes).toEqual(['info\nerror\n', '1\n2\n3\n']);
    batch.flush();
    expect(writes).toHaveLength(2);
  });
});

describe('JsonLogger', () => {
  it('writes one JSON object a line; warn and error are urgent; below the level nothing', () => {
    const lines: Array<[string, boolean]> = [];
    const logger = new JsonLogger('info', (line, urgent) => lines.push([line, urgent]));
    logger.event('debug', 'hidden');
    logger.event('info', 'shown', { n: 1n, k: 'v' }, 'Ctx');
    logger.event('error', 'bad');
    expect(lines.map(([, urgent]) => urgent)).toEqual([false, true]);
    expect(JSON.parse(lines[0][0])).toMatchObject({ level: 'info', msg: 'shown', context: 'Ctx', n: '1', k: 'v', time: expect.any(String) });
  });
});
