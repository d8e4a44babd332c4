/**
 * A service past about seven dependencies is two services (docs/extending.md). This reads every
 * class of `src` that Nest constructs (`@Injectable`, `@Controller`, `@WebSocketGateway`) with the
 * TypeScript compiler and counts its constructor's parameters: each one is a dependency Nest
 * injects (a service, a repository, a port, the config).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..');
const MAX_DEPENDENCIES = 7;
const PROVIDER_DECORATORS = new Set(['Injectable', 'Controller', 'WebSocketGateway']);

interface Provider {
  name: string;
  file: string;
  dependencies: number;
}

/** The classes Nest constructs in one source text, with their constructor's parameter count. */
export function providersIn(file: string, text: string): Provider[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Provider[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name) {
      const decorators = ts.getDecorators(node) ?? [];
      const names = decorators.map((d) => (ts.isCallExpression(d.expression) ? d.expression.expression : d.expression).getText(source));
      if (names.some((n) => PROVIDER_DECORATORS.has(n))) {
        const constructor = node.members.find(ts.isConstructorDeclaration);
        found.push({ name: node.name.text, file, dependencies: constructor?.parameters.length ?? 0 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) out.push(path);
  }
  return out;
}

/** The providers over the rule, as `Name (file): n dependencies`. */
function overTheRule(providers: Provider[]): string[] {
  return providers.filter((p) => p.dependencies > MAX_DEPENDENCIES).map((p) => `${p.name} (${p.file}): ${p.dependencies} dependencies`);
}

const PROVIDERS = sourceFiles(join(ROOT, 'src')).flatMap((path) => providersIn(relative(ROOT, path).split(sep).join('/'), readFileSync(path, 'utf8')));

describe('every service within seven dependencies', () => {
  it('finds the providers of src (the reader works)', () => {
    expect(PROVIDERS.length).toBeGreaterThan(80);
    expect(PROVIDERS.find((p) => p.name === 'FillService')).toMatchObject({ file: 'src/modules/ledger/fill.service.ts' });
  });

  it('no provider of src has more than seven constructor dependencies', () => {
    expect(overTheRule(PROVIDERS)).toEqual([]);
  });

  it('fails on a service with eight dependencies, whatever its decorator is called with', () => {
    const fixture = `
      @Injectable({ scope: Scope.DEFAULT })
      export class TooWideService {
        constructor(a: A, b: B, c: C, d: D, e: E, f: F, g: G, @Inject(CONFIG) h: Config) {}
      }
      @Injectable()
      export class NarrowService {
        constructor(a: A, b: B, c: C, d: D, e: E, f: F, g: G) {}
      }
      export class NotAProvider {
        constructor(a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H) {}
      }`;
    const providers = providersIn('fixture.ts', fixture);
    expect(providers.map((p) => [p.name, p.dependencies])).toEqual([
      ['TooWideService', 8],
      ['NarrowService', 7],
    ]);
    expect(overTheRule(providers)).toEqual(['TooWideService (fixture.ts): 8 dependencies']);
  });
});
