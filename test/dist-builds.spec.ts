import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Nothing rebuilds dist while another process may be starting from it. tsc rewrites every file of
 * dist, and an instance that loads a module in the middle of that gets a half-written one: the official CI
 * of 2026-11-29 failed so ("Nest cannot create the InstrumentsModule instance. The provider at
 * index [1] ... is undefined"), ledger-crash's tsc running beside the instances file on the other
 * jest worker. `npm run test:long:counts` builds once before its workers start, so its files build
 * only through `buildAppUnlessPrebuilt`; .ci/run's chaos runs beside the Python client's exchange
 * and does not build.
 */
const ROOT = resolve(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The `test:long:counts` script of package.json. */
const longRunScript = () => (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['test:long:counts'];

/** The test files that `test:long:counts` runs on two workers after one build. */
function longRunFiles(): string[] {
  return longRunScript()
    .split(/\s+/)
    .filter((word) => word.startsWith('test/') && word.endsWith('.ts'));
}

/** The files those import from test/ (one level: the fleet setup lives there). */
function withLocalImports(file: string): string[] {
  const dir = file.slice(0, file.lastIndexOf('/'));
  const imports = [...read(file).matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) => `${join(dir, m[1])}.ts`);
  return [file, ...imports.filter((path) => path.startsWith('test/'))];
}

describe('dist is built once before the processes that run it start', () => {
  it('test:long:counts builds first and runs its workers with LEGWORK_PREBUILT=1', () => {
    expect(longRunScript()).toMatch(/^npm run build --silent && LEGWORK_PREBUILT=1 /);
    expect(longRunFiles().length).toBeGreaterThanOrEqual(10);
  });

  it('no long-run file, nor what it imports, runs tsc into dist but through buildAppUnlessPrebuilt', () => {
    // test/fleet/fleet.ts defines buildApp and the guarded call; it is the one place allowed to.
    const files = [...new Set(longRunFiles().flatMap(withLocalImports))].filter((path) => path !== 'test/fleet/fleet.ts');
    expect(files.length).toBeGreaterThan(longRunFiles().length);
    const builders = files.filter((path) => {
      let text: string;
      try {
        text = read(path);
      } catch {
        return false; // an import of a directory's index or a .js file: none of them builds
      }
      return /tsconfig\.build\.json|\bbuildApp\(\)/.test(text);
    });
    expect(builders).toEqual([]);
  });

  it('.ci/run starts chaos without a build (the Python client runs dist beside it)', () => {
    const chaos = read('.ci/run')
      .split('\n')
      .filter((line) => line.startsWith('npm run chaos'));
    expect(chaos).toHaveLength(1);
    expect(chaos[0]).toContain('--no-build');
  });
});
