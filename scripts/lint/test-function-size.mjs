/**
 * ESLint rule `legwork/max-lines-per-test-function`: ESLint's own `max-lines-per-function`, for test files,
 * except that the callback of a grouping call is not judged.
 *
 * `describe('x', () => { ... })` declares a group: its callback is the list of the group's tests, hooks and
 * helpers, and grows with every test added, while each of those stays a function a reader must hold. So the
 * callback passed to a grouping call is skipped, and everything inside it (each `it`, hook and helper) is
 * counted exactly as the core rule counts it: the core rule runs underneath and only its reports on group
 * callbacks are dropped.
 *
 * A grouping call is a call of:
 * - a name in the `groups` option (`describe`, imported wrappers such as `describeBothDatabases`);
 * - a `const` bound to a grouping function (`const onPostgres = process.env.DATABASE_URL ? describe : describe.skip`);
 * - `<group>.skip`, `<group>.only`, `<group>.todo`, the result of `<group>.each(table)` or `` <group>.each`table` ``;
 * - `cond ? <group> : <group>` (both branches grouping functions).
 *
 * Options: the core rule's object (`max`, `skipBlankLines`, `skipComments`, `IIFEs`) plus `groups`.
 */
import { builtinRules } from 'eslint/use-at-your-own-risk';

const core = builtinRules.get('max-lines-per-function');
const CORE_OPTIONS = core.meta.schema[0].oneOf.find((schema) => schema.type === 'object');
const MODIFIERS = new Set(['skip', 'only', 'todo']);

/** The expression under TypeScript's type-only wrappers (`x as T`, `x!`, `x satisfies T`). */
function unwrap(node) {
  let current = node;
  while (['TSAsExpression', 'TSNonNullExpression', 'TSSatisfiesExpression', 'TSTypeAssertion'].includes(current.type)) current = current.expression;
  return current;
}

/** The `const` initialiser `name` is bound to where `node` stands, or null (a parameter, a `let`, an import, a global). */
function constInitialiser(sourceCode, node) {
  for (let scope = sourceCode.getScope(node); scope; scope = scope.upper) {
    const variable = scope.set.get(node.name);
    if (!variable) continue;
    const [definition] = variable.defs;
    const declarator = definition?.node;
    if (variable.defs.length !== 1 || definition.type !== 'Variable' || declarator.parent.kind !== 'const') return null;
    return declarator.id.type === 'Identifier' ? declarator.init : null;
  }
  return null;
}

const rule = {
  meta: {
    type: 'suggestion',
    docs: { description: 'max-lines-per-function, where the callback of a grouping call (describe and its wrappers) is a group, not a function' },
    schema: [
      {
        type: 'object',
        properties: { ...CORE_OPTIONS.properties, groups: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
        additionalProperties: false,
      },
    ],
    messages: core.meta.messages,
  },
  create(context) {
    const { groups = ['describe'], ...coreOptions } = context.options[0] ?? {};
    const groupNames = new Set(groups);
    const { sourceCode } = context;

    /** Whether calling `node` declares a group; `seen` stops a cycle of `const` aliases. */
    function isGroupFunction(node, seen = new Set()) {
      const expression = unwrap(node);
      switch (expression.type) {
        case 'Identifier': {
          if (groupNames.has(expression.name)) return true;
          if (seen.has(expression.name)) return false;
          const initialiser = constInitialiser(sourceCode, expression);
          return initialiser !== null && isGroupFunction(initialiser, new Set(seen).add(expression.name));
        }
        case 'MemberExpression':
          return !expression.computed && MODIFIERS.has(expression.property.name) && isGroupFunction(expression.object, seen);
        case 'CallExpression':
          return isEach(expression.callee, seen);
        case 'TaggedTemplateExpression':
          return isEach(expression.tag, seen);
        case 'ConditionalExpression':
          return isGroupFunction(expression.consequent, seen) && isGroupFunction(expression.alternate, seen);
        default:
          return false;
      }
    }

    /** `<group>.each`: calling it with a table returns a grouping function. */
    function isEach(node, seen) {
      const expression = unwrap(node);
      return expression.type === 'MemberExpression' && !expression.computed && expression.property.name === 'each' && isGroupFunction(expression.object, seen);
    }

    /** Whether `node` is a function passed straight to a grouping call. */
    function isGroupCallback(node) {
      const call = node.parent;
      return (
        (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') &&
        call?.type === 'CallExpression' &&
        call.arguments.includes(node) &&
        isGroupFunction(call.callee)
      );
    }

    // The core rule reports on the function node itself (or on the method holding it, never a call argument).
    return core.create(
      Object.freeze(
        Object.create(context, {
          options: { value: [coreOptions] },
          report: { value: (descriptor) => (isGroupCallback(descriptor.node) ? undefined : context.report(descriptor)) },
        }),
      ),
    );
  },
};

export default { rules: { 'max-lines-per-test-function': rule } };
