import { Client } from 'pg';
import { ENTITIES } from '../../src/app-entities';
import { loadConfig } from '../../src/common/config/config';
import { Database } from '../../src/common/database/database';

it('explains', async () => {
  const base = process.env.DATABASE_URL!;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS retention_explain');
  await admin.query('CREATE DATABASE retention_explain');
  const url = new URL(base);
  url.pathname = '/retention_explain';
  const db = await Database.open(loadConfig({ DATABASE_URL: url.toString(), JWT_SECRET: 'x'.repeat(32), EXCHANGE_SIGNING_KEY: '11'.repeat(32) }), ENTITIES);
  await db.exec(`INSERT INTO accounts (id, wallet, roles, created_at) VALUES (1, 'w', '{taker}', now()) ON CONFLICT DO NOTHING`).catch((e) => console.log(String(e)));
  const now = 1_800_000_000;
  // 1.2 M RFQs: 1 M ended long ago and pruned (kept for fills: events_pruned_at = ended_at), 150 k recent, 50 k due.
  await db.exec(
    `INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at, ended_at, events_pruned_at)
     SELECT lpad(to_hex(g), 32, '0'), 1, 'r' || g, '[]', 'SOL', 0, 'expired', 0, 0, 0, 0,
            CASE WHEN g <= 1000000 THEN $1 - 90 * 86400 + g WHEN g <= 1050000 THEN $1 - 31 * 86400 + g ELSE $1 - 86400 + g END,
            CASE WHEN g <= 1000000 THEN $1 - 90 * 86400 + g END
       FROM generate_series(1, 1200000) g`,
    [now],
  );
  await db.exec(`INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'x', 'x', 0 FROM rfqs WHERE events_pruned_at IS NULL`);
  await db.exec('ANALYZE');
  const cutoff = now - 30 * 86400;
  const ids = (await db.rows<{ id: string }>(`SELECT id FROM rfqs WHERE ended_at < $1 AND events_pruned_at IS NULL ORDER BY ended_at LIMIT 2500`, [cutoff])).map((r) => r.id);
  const explain = async (label: string, sql: string, params: unknown[]) =>
    console.log(label + '\n' + (await db.rows<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).map((r) => r['QUERY PLAN']).join('\n'));
  await explain(
    'due',
    `SELECT r.id, (r.fill_id IS NOT NULL OR EXISTS (SELECT 1 FROM fills f WHERE f.rfq_id = r.id)) AS kept FROM rfqs r
      WHERE r.ended_at IS NOT NULL AND r.events_pruned_at IS DISTINCT FROM r.ended_at AND r.ended_at < $1 ORDER BY r.ended_at, r.id LIMIT $2`,
    [cutoff, 2500],
  );
  await explain('events', `DELETE FROM rfq_events WHERE id IN (SELECT id FROM rfq_events WHERE rfq_id = ANY($1::char(32)[]) LIMIT $2)`, [ids, 5000]);
  await explain(
    'unfilled',
    `WITH doomed AS (SELECT r.id FROM rfqs r WHERE r.id = ANY($1::char(32)[]) AND r.ended_at < $2 AND r.fill_id IS NULL
                 AND NOT EXISTS (SELECT 1 FROM fills f WHERE f.rfq_id = r.id) FOR UPDATE SKIP LOCKED),
          events AS (DELETE FROM rfq_events e USING doomed d WHERE e.rfq_id = d.id),
          accepted AS (DELETE FROM accepts a USING doomed d WHERE a.rfq_id = d.id),
          gone AS (DELETE FROM rfqs r USING doomed d WHERE r.id = d.id RETURNING r.id)
     SELECT count(*)::int AS n FROM gone`,
    [ids, cutoff],
  );
  await explain(
    'oldest',
    `SELECT (SELECT min(ended_at) FROM rfqs WHERE ended_at IS NOT NULL AND events_pruned_at IS DISTINCT FROM ended_at) AS rfq, (SELECT min(at) FROM account_events) AS event`,
    [],
  );
  await db.close();
  await admin.query('DROP DATABASE IF EXISTS retention_explain WITH (FORCE)');
  await admin.end();
}, 600_000);
