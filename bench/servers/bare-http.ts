import Fastify from 'fastify';
import { Pool } from 'pg';
import { memoryAfterGc } from './memory';

/**
 * Baseline of F1: a bare Fastify server (no Nest, no guard, no validation, no logging) with one
 * route, GET /query/rfq-positions, in one of two modes set over IPC:
 * - `canned` `{ body }`: returns `body` (an object, serialized by Fastify per request) — F1a;
 * - `raw` `{ statements }`: runs the same SQL statements with the same parameters Legwork sent
 *   (captured by pg-trace) through a raw `pg` Pool of 10, as named statements, and returns `{ rows }` of the first — F1b;
 *   a first statement that answers the body itself (one row of one text column `body`, the JSON a
 *   read rendered by PostgreSQL: Legwork's rfq-positions) is sent as that text, as Legwork sends it.
 */
type Statement = { text: string; values: unknown[] };
let mode: 'canned' | 'raw' = 'canned';
let body: unknown = { rows: [] };
let statements: Statement[] = [];
const pool = process.env.BENCH_DATABASE_URL ? new Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 }) : null;

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
app.get('/query/rfq-positions', async (_request, reply) => {
  if (mode === 'canned') return body;
  let first: Array<Record<string, unknown>> | null = null;
  for (const [i, s] of statements.entries()) {
    // Named, as Legwork names the texts it repeats (common/database/sql.ts StatementNames): each
    // is parsed and planned once per connection on both sides, not on every request here only.
    const { rows } = await pool!.query({ name: `f1b_${i}`, text: s.text, values: s.values });
    first ??= rows;
  }
  const rendered = first?.length === 1 && Object.keys(first[0]).join() === 'body' ? first[0].body : null;
  if (typeof rendered === 'string') return reply.type('application/json; charset=utf-8').send(rendered);
  return { rows: first ?? [] };
});

async function onMessage(m: { type: string; [key: string]: unknown }): Promise<void> {
  try {
    if (m.type === 'memory') process.send?.({ type: 'memory', memory: await memoryAfterGc() });
    else if (m.type === 'canned') {
      mode = 'canned';
      body = m.body;
      process.send?.({ type: 'canned' });
    } else if (m.type === 'raw') {
      if (!pool) throw new Error('BENCH_DATABASE_URL is not set');
      mode = 'raw';
      statements = m.statements as Statement[];
      process.send?.({ type: 'raw' });
    } else process.send?.({ type: m.type, error: `unknown request ${m.type}` });
  } catch (error) {
    process.send?.({ type: m.type, error: String(error) });
  }
}
process.on('message', (m: { type: string; [key: string]: unknown }) => void onMessage(m));
process.on('SIGTERM', () => {
  void app.close().then(async () => {
    await pool?.end();
    process.exit(0);
  });
  setTimeout(() => process.exit(0), 3000).unref();
});
void app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const address = app.server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
