import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * docs/spec is the contract as Legwork implements it, copied from ../shared/spec so that a clone
 * explains itself. While ../shared exists (the workspace the contract is written in), the copy must
 * be the same file for file, byte for byte: a change of the contract is copied in with the code
 * that implements it. In a clone without ../shared there is nothing to compare, and this says so.
 */
const ROOT = resolve(__dirname, '..');
const COPY = join(ROOT, 'docs', 'spec');
const SHARED = resolve(ROOT, '..', 'shared');
const SOURCE = join(SHARED, 'spec');

/** Every file under `dir`, as paths relative to it, sorted. */
function files(dir: string): string[] {
  const walk = (at: string): string[] => readdirSync(at).flatMap((name) => (statSync(join(at, name)).isDirectory() ? walk(join(at, name)) : [join(at, name)]));
  return walk(dir)
    .map((path) => relative(dir, path))
    .sort();
}

describe('docs/spec: the contract inside the repository', () => {
  it('holds the interface, the design and the vectors', () => {
    expect(files(COPY)).toEqual(expect.arrayContaining(['design.md', 'interface.md', join('vectors', 'payloads.json')]));
  });

  const compare = existsSync(SHARED) ? it : it.skip;
  compare(`is the same as ${SOURCE}${existsSync(SHARED) ? '' : ' (skipped: ../shared does not exist beside this clone)'}`, () => {
    const copied = files(COPY);
    expect(copied).toEqual(files(SOURCE));
    const differing = copied.filter((file) => !readFileSync(join(COPY, file)).equals(readFileSync(join(SOURCE, file))));
    expect(differing).toEqual([]);
  });
});
