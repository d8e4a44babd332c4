/**
 * The docs name only what exists. A doc that names a file, a class or a decorator the code no
 * longer has sends a newcomer looking for it; this test fails instead, naming the doc, the line
 * and the name. It reads every markdown file under docs/ (but the contract's copy in docs/spec,
 * which describes the exchange, not this tree) and the READMEs a newcomer opens first. A bare
 * file name (`fill.service.ts`, `rfq.schemas.ts`: a name, a kind, an extension, no folder) must be
 * the name of some file of the tree, in the docs and in the comments of `src/` alike: a comment that
 * sends a reader to a deleted file is as stale as a page that does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..');
const READMES = ['README.md', 'clients/python/README.md', 'bench/README.md'];
const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'dist-tools',
  'dist-test',
  'dist-packages',
  '.build',
  '.exp',
  '.data',
  'coverage',
  '__pycache__',
  '.venv',
]);
/** The top-level folders of the tree: a bare `src/...` in prose is a path into one of them. */
const TOP = ['src', 'test', 'bench', 'chaos', 'tools', 'sdk', 'console', 'packages', 'scripts', 'docs', 'clients', 'deploy', 'migrations'];
/** Where names are declared: the code of every part of the tree. */
const CODE = /\.(ts|tsx|mts|js|mjs|cjs|py)$/;

/**
 * Names declared outside this tree (by a dependency, Node, the browser or the language), which the
 * docs name on purpose. One list, each with the reason it is there.
 */
const EXTERNAL: Record<string, string> = {
  // NestJS and its Fastify/ws adapters: decorators and classes the code uses by these names.
  Injectable: 'NestJS decorator',
  Controller: 'NestJS decorator',
  Module: 'NestJS decorator',
  Inject: 'NestJS decorator',
  Get: 'NestJS decorator',
  Post: 'NestJS decorator',
  Body: 'NestJS decorator',
  Query: 'NestJS decorator',
  Param: 'NestJS decorator',
  UseGuards: 'NestJS decorator',
  UseInterceptors: 'NestJS decorator',
  SetMetadata: 'NestJS decorator',
  Global: 'NestJS decorator',
  WebSocketGateway: 'NestJS decorator (@nestjs/websockets)',
  ApiProperty: '@nestjs/swagger decorator',
  ApiProduces: '@nestjs/swagger decorator',
  ApiOkResponse: '@nestjs/swagger decorator',
  ApiTags: '@nestjs/swagger decorator',
  ApiBearerAuth: '@nestjs/swagger decorator',
  HttpException: 'NestJS class',
  ValidationPipe: 'NestJS class',
  FastifyAdapter: 'NestJS class (@nestjs/platform-fastify)',
  WsAdapter: 'NestJS class (@nestjs/platform-ws)',
  NestFactory: 'NestJS class',
  ExceptionFilter: 'NestJS interface',
  // TypeORM: decorators and classes.
  Entity: 'TypeORM decorator',
  Column: 'TypeORM decorator',
  Index: 'TypeORM decorator',
  PrimaryColumn: 'TypeORM decorator',
  PrimaryGeneratedColumn: 'TypeORM decorator',
  ForeignKey: 'TypeORM decorator',
  Check: 'TypeORM decorator',
  Unique: 'TypeORM decorator',
  DataSource: 'TypeORM class',
  QueryFailedError: 'TypeORM class',
  QueryRunner: 'TypeORM interface',
  // class-validator and class-transformer decorators.
  IsString: 'class-validator decorator',
  IsOptional: 'class-validator decorator',
  ValidateNested: 'class-validator decorator',
  Type: 'class-transformer decorator',
  // Node, the browser and the language.
  AsyncLocalStorage: 'node:async_hooks class',
  KeyObject: 'node:crypto class',
  WeakMap: 'JavaScript built-in',
  BigInt: 'JavaScript built-in',
  JSON: 'JavaScript built-in',
  WebSocket: 'the browser and ws class',
  EventEmitter: 'node:events class',
  TextEncoder: 'JavaScript built-in',
  // Other dependencies.
  PGlite: '@electric-sql/pglite class',
  PgBouncer: 'a PostgreSQL pooler, named as a product',
  PostgreSQL: 'a product name',
  BullMQ: 'a product name',
  JavaScript: 'a product name',
  TypeScript: 'a product name',
  NestJS: 'a product name',
  OpenAPI: 'a product name',
  AsyncAPI: 'a product name',
  GitHub: 'a product name',
};

interface Finding {
  doc: string;
  line: number;
  kind: 'file' | 'bare file' | 'link' | 'class' | 'decorator';
  name: string;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name), out);
    } else out.push(relative(ROOT, join(dir, entry.name)).split(sep).join('/'));
  }
  return out;
}

const FILES = walk(ROOT);
const FILE_SET = new Set(FILES);
/** The file names of the tree, without their folders: what a bare name must be one of. */
const BASENAMES = new Set(FILES.map((f) => f.slice(f.lastIndexOf('/') + 1)));
const DIR_SET = new Set(
  FILES.flatMap((f) =>
    f
      .split('/')
      .slice(1)
      .map((_, i, parts) =>
        f
          .split('/')
          .slice(0, parts.length - i)
          .join('/'),
      ),
  ),
);

/** Every name declared by the code: classes, interfaces, types, enums, functions and constants (decorators are these). */
const DECLARED = new Set<string>();
for (const file of FILES.filter((f) => CODE.test(f))) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/\b(?:class|interface|type|enum|function|const|let|namespace|def)\s+([A-Za-z_]\w*)/g)) DECLARED.add(m[1]);
  // Python type aliases (`Name: TypeAlias = ...`) at the start of a line.
  if (file.endsWith('.py')) for (const m of text.matchAll(/^([A-Za-z_]\w*): TypeAlias =/gm)) DECLARED.add(m[1]);
}

/** A path exists as written: from the root, from the doc's folder, or as the tail of one file or folder of the tree. */
function pathExists(path: string, doc: string): boolean {
  const clean = path
    .replace(/^\.\//, '')
    .replace(/\/$/, '')
    .replace(/[#:].*$/, '');
  if (FILE_SET.has(clean) || DIR_SET.has(clean)) return true;
  const fromDoc = relative(ROOT, resolve(ROOT, dirname(doc), clean))
    .split(sep)
    .join('/');
  if (FILE_SET.has(fromDoc) || DIR_SET.has(fromDoc)) return true;
  return FILES.some((f) => f.endsWith('/' + clean)) || [...DIR_SET].some((d) => d.endsWith('/' + clean));
}

/** Paths the bench, the build or an operator make, never committed: named in the docs on purpose. */
const GENERATED = [
  /^bench\/\.build\//,
  /^bench\/results\/profiles\//,
  /^bench\/results\/.*\.trace\.json$/,
  /^dist/,
  /^\.data\//,
  /^chaos\/\.build\//,
  /^console\/dist\//,
];
/** A name written as a pattern (`<module>`, `*`, `{a,b}`, `…`) stands for many files and is not checked. */
const PATTERN = /[<>*{}…]|\.\.\./;

function checkPath(path: string, doc: string): boolean {
  return PATTERN.test(path) || GENERATED.some((g) => g.test(path)) || pathExists(path, doc);
}

/** Extensions of files this tree holds: `public/get_market_config.assets` is a method and a field, not a file. */
const EXTENSIONS = 'ts|tsx|mts|js|mjs|cjs|json|jsonc|md|sql|py|sh|yml|yaml|svg|png|toml|txt|html|css|cpuprofile|heapsnapshot|lock';
const CLASS_SUFFIX = /\b([A-Z][A-Za-z0-9]*(?:Service|Repository|Controller|Gateway|Guard|Interceptor|Processor|Module|Filter|Pipe|Rpc))\b/g;
/** A backticked PascalCase identifier with at least two humps (`RfqRecord`, `JsonText.of()`), not a word (`Legwork`). */
const BACKTICKED_CLASS = /^@?([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?:[.(<[].*)?$/;
const TOP_PATH = new RegExp(`(?<![\\w./-])((?:${TOP.join('|')})/[\\w./-]*\\w\\.(?:${EXTENSIONS}))(?![\\w/])`, 'g');
/**
 * A bare `name.kind.ts`: at least two dots before a script extension, not the tail of a path (no `/`
 * before it) and not a pattern (`*.rpc.ts`, `<name>.service.ts`: the character before stops it).
 */
const BARE_FILE = /(?<![\w./*<>{}-])([A-Za-z0-9][\w-]*(?:\.[\w-]+)+\.(?:ts|tsx|mts|cts|js|mjs|cjs))(?![\w/])/g;
const BACKTICKED_PATH = new RegExp(`^\\.{0,2}\\/?[\\w.-]+(?:\\/[\\w.-]+)+\\.(?:${EXTENSIONS})$`);

function known(name: string): boolean {
  return DECLARED.has(name) || name in EXTERNAL;
}

/** Bare file names of a line that no file of the tree has. */
function staleBareNames(line: string): string[] {
  return [...line.matchAll(BARE_FILE)].map((m) => m[1]).filter((name) => !BASENAMES.has(name));
}

function checkLine(line: string, lineNo: number, doc: string, findings: Finding[]): void {
  const seen = new Set<string>();
  const add = (kind: Finding['kind'], name: string): void => {
    if (!seen.has(`${kind} ${name}`)) findings.push({ doc, line: lineNo, kind, name });
    seen.add(`${kind} ${name}`);
  };
  for (const m of line.matchAll(TOP_PATH)) if (!checkPath(m[1], doc)) add('file', m[1]);
  for (const name of staleBareNames(line)) add('bare file', name);
  for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^(https?:|mailto:|#)/.test(target)) continue;
    const inside = resolve(ROOT, dirname(doc), target.replace(/#.*$/, ''));
    if (!inside.startsWith(ROOT + sep) || !checkPath(relative(ROOT, inside).split(sep).join('/'), '.')) add('link', target);
  }
  for (const m of line.matchAll(/`([^`\n]+)`/g)) {
    const code = m[1].trim();
    if (BACKTICKED_PATH.test(code) && !/^(https?:|\/)/.test(code) && !checkPath(code, doc)) add('file', code);
    const cls = BACKTICKED_CLASS.exec(code);
    if (cls && !known(cls[1])) add(code.startsWith('@') ? 'decorator' : 'class', cls[1]);
  }
  for (const m of line.matchAll(CLASS_SUFFIX)) if (!known(m[1])) add('class', m[1]);
  for (const m of line.matchAll(/(?<![\w@/.`-])@([A-Z][A-Za-z0-9]+)\b/g)) if (!known(m[1])) add('decorator', m[1]);
}

function checkDoc(doc: string): Finding[] {
  const findings: Finding[] = [];
  let fenced = false;
  readFileSync(join(ROOT, doc), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      // A fenced block is code or a transcript: its paths and names are checked, its shell comments are not prose.
      checkLine(fenced ? line.replace(/^\s*#.*$/, '') : line, i + 1, doc, findings);
    });
  return findings;
}

/** The comments of a source file (`//` to the end of the line, `/* … *\/` blocks), with the line each starts on. */
function commentsOf(text: string): { line: number; text: string }[] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g)].map((m) => ({ line: text.slice(0, m.index).split('\n').length, text: m[0] }));
}

/** Bare file names in the comments of one source file that no file of the tree has. */
function checkComments(file: string): Finding[] {
  return commentsOf(readFileSync(join(ROOT, file), 'utf8')).flatMap((comment) =>
    comment.text
      .split('\n')
      .flatMap((line, i) => staleBareNames(line).map((name) => ({ doc: file, line: comment.line + i, kind: 'bare file' as const, name }))),
  );
}

const SOURCES = FILES.filter((f) => f.startsWith('src/') && /\.tsx?$/.test(f));
const DOCS = [...FILES.filter((f) => f.startsWith('docs/') && f.endsWith('.md') && !f.startsWith('docs/spec/')), ...READMES];

describe('the docs name only what exists', () => {
  it('finds the docs and the code it checks them against', () => {
    expect(DOCS.length).toBeGreaterThan(10);
    expect(DECLARED.has('RfqService')).toBe(true);
    expect(statSync(join(ROOT, 'docs/README.md')).isFile()).toBe(true);
  });

  it.each(DOCS)('%s names no missing file, link, class or decorator', (doc) => {
    const missing = checkDoc(doc).map((f) => `${f.doc}:${f.line}: ${f.kind} ${f.name}`);
    expect(missing).toEqual([]);
  });

  it.each(SOURCES)('%s names no missing file in its comments', (file) => {
    const missing = checkComments(file).map((f) => `${f.doc}:${f.line}: ${f.kind} ${f.name}`);
    expect(missing).toEqual([]);
  });

  it('catches a bare file name that does not exist, in a doc and in a comment, and lets a pattern by', () => {
    const findings: Finding[] = [];
    checkLine('Handlers in `rfq.rpc.ts` (params in rfq.schemas.ts); one `*.schemas.ts` or `<name>.service.ts` each.', 1, 'docs/x.md', findings);
    expect(findings).toEqual([{ doc: 'docs/x.md', line: 1, kind: 'bare file', name: 'rfq.schemas.ts' }]);
    const comments = commentsOf("const url = 'https://x.test/a.b.ts';\n/**\n * see gone.service.ts\n */\nfoo(); // and fill.service.ts, old.sql.ts\n");
    expect(comments.flatMap((c) => c.text.split('\n').flatMap((l, i) => staleBareNames(l).map((n) => `${c.line + i} ${n}`)))).toEqual([
      '3 gone.service.ts',
      '5 old.sql.ts',
    ]);
  });

  it('catches a name that does not exist', () => {
    const findings: Finding[] = [];
    checkLine('See `src/modules/rfq/gone.service.ts`, `GoneService.move()` and `@GoneAccess()`; [x](../outside.md).', 1, 'docs/x.md', findings);
    expect(findings.map((f) => f.kind).sort()).toEqual(['class', 'decorator', 'file', 'link']);
  });
});
