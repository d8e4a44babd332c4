// legwork/transaction-executor (scripts/lint/transaction-executor.mjs): inside `db.tx(...)` or a function
// taking a `Tx`, a call on the pool, an executor left to its default and an executor that is not the
// transaction are reported; the same calls made with the transaction, and afterCommit callbacks, are not.
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import transactions from './transaction-executor.mjs';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const fixtures = fileURLToPath(new URL('fixtures/', import.meta.url));
const filename = `${fixtures}transaction.fixture.ts`;
const HEAD =
  "import type { Sql, SqlPool, Tx } from '../../../src/common/database/sql';\n" +
  'declare const db: SqlPool;\n' +
  'declare const repo: { read(id: number, sql?: Sql): Promise<number>; write(tx: Tx, id: number): Promise<void>; either(id: number, sql: Sql): Promise<number>; plain(id: number): number };\n';
const code = (body) => ({ code: `${HEAD}${body}`, filename });
const fail = (body, ...messageIds) => ({ ...code(body), errors: messageIds.map((messageId) => ({ messageId })) });

// disallowAutomaticSingleRunInference: with CI=true typescript-eslint builds its program once from the files on disk,
// which these cases' texts are not (each stands in the fixture's path): the checker then fails inside TypeScript.
new RuleTester({
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { project: `${fixtures}tsconfig.json`, tsconfigRootDir: fixtures, disallowAutomaticSingleRunInference: true },
  },
}).run('transaction-executor', transactions.rules['transaction-executor'], {
  valid: [
    code('export const a = db.tx(async (tx) => { await repo.read(1, tx); await repo.write(tx, 1); await repo.either(1, tx); repo.plain(1); });'),
    code('export async function f(tx: Tx) { await repo.read(1, tx); await tx.exec("UPDATE x SET y = 1"); }'),
    // After the COMMIT, the pool is right.
    code('export const a = db.tx(async (tx) => { tx.afterCommit(async () => { await repo.read(1); await db.exec("NOTIFY x"); }); });'),
    // Outside a transaction, the pool is right.
    code('export async function g() { await repo.read(1); await db.exec("UPDATE x SET y = 1"); await repo.either(1, db); }'),
  ],
  invalid: [
    fail('export const a = db.tx(async (tx) => { await db.exec("UPDATE x SET y = 1"); });', 'pool'),
    fail('export class S { constructor(private readonly db: SqlPool) {} run() { return this.db.tx(async (tx) => this.db.rows("SELECT 1")); } }', 'pool'),
    fail('export const a = db.tx(async (tx) => repo.read(1));', 'defaulted'),
    fail('export const a = db.tx(async (tx) => repo.either(1, db));', 'notTx'),
    fail('export async function f(tx: Tx, sql: Sql) { await repo.either(1, sql); await repo.read(2); }', 'notTx', 'defaulted'),
    // A callback nested in the transaction's body is still inside it.
    fail('export const a = db.tx(async (tx) => Promise.all([1, 2].map((id) => repo.read(id))));', 'defaulted'),
  ],
});
