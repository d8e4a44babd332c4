/**
 * ESLint rule `legwork/transaction-executor`: inside a transaction, every statement runs on it.
 *
 * A transaction body is the callback of `<anything>.tx(fn)` (`Database.tx`), or any function that
 * takes a parameter annotated `Tx`. In one, the rule reports:
 * - a call on the pool: `this.db.<method>(...)` or `db.<method>(...)` (but `.tx(...)`);
 * - a call that leaves an `Sql`/`Tx` parameter of its callee to its default (a repository method
 *   whose executor defaults to `this.db` would run on the pool);
 * - a call that hands such a parameter anything but a `Tx` (the pool, a `Database`, a plain `Sql`).
 * Callbacks given to `afterCommit` run after the COMMIT, on the pool by design: they are skipped.
 *
 * Why: on PostgreSQL such a statement runs outside the transaction, without its locks and outside
 * its atomicity; on embedded PGlite, which has one session, it waits for the transaction forever.
 * Needs type information (the callee's parameter types).
 */

/** Is `node` the callback (first argument) of a `.tx(...)` call? */
function isTxCallback(node) {
  const call = node.parent;
  return call?.type === 'CallExpression' && call.arguments[0] === node && call.callee.type === 'MemberExpression' && call.callee.property.name === 'tx';
}

/** Is `node` a callback of `.afterCommit(...)`? */
function isAfterCommitCallback(node) {
  const call = node.parent;
  return call?.type === 'CallExpression' && call.callee.type === 'MemberExpression' && call.callee.property.name === 'afterCommit';
}

/** Does the function declare a parameter annotated `Tx`? */
function takesTx(node) {
  return node.params.some((p) => {
    const param = p.type === 'TSParameterProperty' ? p.parameter : p;
    const annotation = param.typeAnnotation?.typeAnnotation;
    return annotation?.type === 'TSTypeReference' && annotation.typeName.type === 'Identifier' && annotation.typeName.name === 'Tx';
  });
}

/** `this.db` or a bare `db`. */
function isPool(node) {
  if (node.type === 'Identifier') return node.name === 'db';
  return node.type === 'MemberExpression' && node.object.type === 'ThisExpression' && node.property.name === 'db';
}

const EXECUTOR_TYPES = new Set(['Sql', 'Tx']);

/**
 * Is the type `Tx` (the interface, or an alias of it)? Read off its symbols: `typeToString` may
 * print a module specifier, which needs a compiler host the linter's program does not always have.
 */
function isTx(type) {
  return type.aliasSymbol?.getName() === 'Tx' || type.getSymbol()?.getName() === 'Tx';
}

/** @type {import('eslint').Rule.RuleModule} */
export const transactionExecutor = {
  meta: {
    type: 'problem',
    docs: { description: 'Inside a transaction, statements run on its Tx, never on the pool' },
    schema: [],
    messages: {
      pool: 'this call runs on the pool inside a transaction: use the transaction ({{name}}) instead',
      defaulted: "'{{callee}}' is called without its executor inside a transaction: pass the transaction's Tx (its '{{param}}' defaults to the pool)",
      notTx: "'{{callee}}' gets '{{arg}}' for its executor '{{param}}' inside a transaction: pass the transaction's Tx",
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services?.program?.getTypeChecker();
    /** The transaction bodies the walk is in (innermost last); an afterCommit callback pushes null. */
    const bodies = [];
    const enter = (node) => {
      if (isAfterCommitCallback(node)) bodies.push(null);
      else if (isTxCallback(node) || takesTx(node)) bodies.push(node);
      else bodies.push(bodies.at(-1) ?? null);
    };
    const leave = () => bodies.pop();
    const txName = (body) => {
      const param = body.params[0];
      return param?.type === 'Identifier' ? param.name : 'tx';
    };
    const executorParams = (node) => {
      if (!checker) return [];
      const signature = checker.getResolvedSignature(services.esTreeNodeToTSNodeMap.get(node));
      if (!signature) return [];
      return signature.parameters.flatMap((symbol, index) => {
        const declaration = symbol.valueDeclaration;
        const typeText = declaration?.type?.getText();
        return typeText && EXECUTOR_TYPES.has(typeText)
          ? [{ index, name: symbol.getName(), optional: Boolean(declaration.initializer || declaration.questionToken) }]
          : [];
      });
    };
    return {
      ':function': enter,
      ':function:exit': leave,
      CallExpression(node) {
        const body = bodies.at(-1);
        if (!body) return;
        const callee = node.callee;
        if (callee.type === 'MemberExpression' && isPool(callee.object) && callee.property.name !== 'tx') {
          context.report({ node, messageId: 'pool', data: { name: txName(body) } });
          return;
        }
        const calleeText = context.sourceCode.getText(callee);
        for (const param of executorParams(node)) {
          const arg = node.arguments[param.index];
          if (!arg) {
            if (param.optional) context.report({ node, messageId: 'defaulted', data: { callee: calleeText, param: param.name } });
            continue;
          }
          if (!isTx(checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(arg))))
            context.report({ node: arg, messageId: 'notTx', data: { callee: calleeText, arg: context.sourceCode.getText(arg), param: param.name } });
        }
      },
    };
  },
};

export default { rules: { 'transaction-executor': transactionExecutor } };
