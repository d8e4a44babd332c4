/**
 * ESLint rule `legwork/import-boundaries`: the layering of docs/architecture.md as a check.
 *
 * Relative imports are resolved against the importing file, so the rule judges where an import
 * lands, not how its path is spelled (`../ledger/x` from `rfq/` and `../../ledger/x` from
 * `rfq/domain/` are the same crossing). Package imports are judged by name.
 *
 * - `domain/` code is pure: no Nest, no TypeORM or database driver, no queue, no HTTP server;
 *   and it imports no injectable (service, repository, module, handler, controller).
 * - `src/common` imports no feature module.
 * - a migration imports nothing from `src` (a migration is frozen: it carries its own copy of any logic).
 * - a module never imports another module's repository (`*.repository.ts`, `*.sql.ts`: its statements) or entity; it asks
 *   through that module's service.
 * - a workspace package (`packages/*`, shared by the server, the SDK and the tools) is pure like
 *   domain code and imports nothing from the server.
 * - modules are layered (MODULE_LAYERS): a module imports only modules of a lower layer, so the
 *   import graph of `src` has no upward edge and no cycle. A new module declares its layer here.
 */
import path from 'node:path';

/** Packages that mean a framework, a database or a transport: never in `domain/`. */
const IMPURE_PACKAGES = [/^@nestjs\//, /^typeorm(\/|$)/, /^pg(\/|$)/, /^@electric-sql\//, /^ioredis$/, /^bullmq$/, /^fastify(\/|$)/, /^@fastify\//, /^ws$/];
/** Files that are injectables or transports; a pure function never depends on them. */
const INJECTABLE = /\.(service|repository|module|rpc|controller|gateway|processor)(\.[cm]?[jt]s)?$/;
const REPOSITORY = /\.(repository|sql)(\.[cm]?[jt]s)?$/;
const ENTITY = /(^|\/)entities\/|\.entity(\.[cm]?[jt]s)?$/;
const SPEC = /\.(spec|e2e-spec|test)\.[cm]?[jt]sx?$/;

/**
 * The layers of `src/modules`, lowest first (docs/architecture.md). A module may import from a module
 * of a LOWER layer only: never from its own layer, never upward. What two layers share moves down
 * (into a lower module, `src/common` or `@legwork/protocol`), it is not reached for upward.
 */
export const MODULE_LAYERS = [
  ['health', 'accounts', 'instruments'],
  ['auth', 'journal', 'market-data', 'gateway'],
  ['audit'],
  ['maker-limits'],
  ['rfq'],
  ['competition'],
  ['ledger'],
  ['query', 'docs'],
  ['admin', 'console'],
];

/** The layer of a module (its index in MODULE_LAYERS), or -1 when it declares none. */
function layerOf(module) {
  return MODULE_LAYERS.findIndex((layer) => layer.includes(module));
}

/** The repository-relative path of a file, with forward slashes. */
function relative(root, file) {
  return path.relative(root, file).split(path.sep).join('/');
}

/** `src/modules/<name>/...` → name; anything else → undefined. */
function moduleOf(rel) {
  const m = /^src\/modules\/([^/]+)\//.exec(rel);
  return m ? m[1] : undefined;
}

/** What an import may not be, for the file at `from` (repository-relative). Returns a message or undefined. */
export function boundaryViolation(from, specifier) {
  const isPackage = from.startsWith('packages/');
  const isDomain = (/(^|\/)domain\//.test(from) || isPackage) && !SPEC.test(from);
  if (!specifier.startsWith('.')) {
    if (isDomain && IMPURE_PACKAGES.some((re) => re.test(specifier))) return `domain code is pure: it may not import '${specifier}'`;
    return undefined;
  }
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (target.startsWith('..')) return undefined;
  if (from.startsWith('migrations/') && target.startsWith('src/')) {
    return 'a migration is frozen: it imports nothing from src (copy the logic it needs into the migration)';
  }
  if (isPackage && target.startsWith('src/')) return 'a workspace package imports nothing from the server (src)';
  if (from.startsWith('src/common/') && target.startsWith('src/modules/')) return 'src/common imports no feature module';
  if (isDomain && INJECTABLE.test(target)) return `domain code imports no injectable or transport ('${specifier}')`;
  const own = moduleOf(from);
  const other = moduleOf(target);
  if (own && other && own !== other && !SPEC.test(from)) {
    if (REPOSITORY.test(target)) return `module '${own}' may not import the repository of module '${other}': ask through its exported service`;
    if (ENTITY.test(target)) return `module '${own}' may not import an entity of module '${other}': ask through its exported service`;
    const [ownLayer, otherLayer] = [layerOf(own), layerOf(other)];
    if (ownLayer < 0) return `module '${own}' declares no layer: add it to MODULE_LAYERS (scripts/lint/import-boundaries.mjs)`;
    if (otherLayer < 0) return `module '${other}' declares no layer: add it to MODULE_LAYERS (scripts/lint/import-boundaries.mjs)`;
    if (otherLayer >= ownLayer) {
      return `module '${own}' (layer ${ownLayer}) may not import module '${other}' (layer ${otherLayer}): imports point down only; move what both need to a lower layer`;
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const importBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Layer and module boundaries of docs/architecture.md' },
    schema: [],
    messages: { boundary: '{{message}}' },
  },
  create(context) {
    const root = context.cwd;
    const from = relative(root, context.filename);
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const message = boundaryViolation(from, node.value);
      if (message) context.report({ node, messageId: 'boundary', data: { message } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportEqualsDeclaration: (node) => check(node.moduleReference?.expression),
      'CallExpression[callee.name="require"]': (node) => check(node.arguments[0]),
    };
  },
};

export default { rules: { 'import-boundaries': importBoundaries } };
