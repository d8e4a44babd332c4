import { Client } from 'pg';

/**
 * Where a side's PostgreSQL work goes during a window, from the statistics views (no extension
 * needed): the database's blocks read and hit, commits and rows, the server's WAL records, full
 * page images and bytes (pg_stat_wal is cluster-wide: the other side is idle during a window), and
 * the tables and indexes whose block reads grew the most. Statistics reach the views up to a second
 * late, so these are shapes per operation, not exact counts.
 */
export interface PgWindowStats {
  database: Record<string, number>;
  wal: Record<string, number>;
  relations: Array<{ name: string; blocks: number; read: number; seqScans: number; seqRows: number }>;
}

type Snapshot = { database: Record<string, number>; wal: Record<string, number>; relations: Map<string, number[]> };

async function snapshot(c: Client, database: string): Promise<Snapshot> {
  await c.query('SELECT pg_stat_clear_snapshot()');
  const db = await c.query(
    `SELECT xact_commit, blks_read, blks_hit, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
       FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  const wal = await c.query(`SELECT wal_records, wal_fpi, wal_bytes, wal_write, wal_sync FROM pg_stat_wal`);
  // Relations of the side's database: this client is connected to it.
  const rel = await c.query<{ name: string; hit: string; read: string; seq: string; seqrows: string }>(
    `SELECT relname AS name, coalesce(heap_blks_hit, 0) + coalesce(toast_blks_hit, 0) AS hit,
            coalesce(heap_blks_read, 0) + coalesce(toast_blks_read, 0) AS read, 0 AS seq, 0 AS seqrows
       FROM pg_statio_user_tables
     UNION ALL
     SELECT 'index ' || indexrelname, idx_blks_hit, idx_blks_read, 0, 0 FROM pg_statio_user_indexes
     UNION ALL
     SELECT 'seq ' || relname, 0, 0, seq_scan, seq_tup_read FROM pg_stat_user_tables`,
  );
  const numbers = (row: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
  return {
    database: numbers(db.rows[0]),
    wal: numbers(wal.rows[0]),
    relations: new Map(rel.rows.map((r) => [r.name, [Number(r.hit), Number(r.read), Number(r.seq), Number(r.seqrows)]])),
  };
}

/** Starts a window on the side's database; the returned function gives the deltas per `ops` operations. */
export async function pgWindow(databaseUrl: string, database: string): Promise<(ops: number) => Promise<PgWindowStats>> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  const before = await snapshot(c, database);
  return async (ops: number) => {
    // The backends flush their counters at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await snapshot(c, database);
    await c.end();
    const per = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(Object.keys(a).map((k) => [k, Math.round(((a[k] - (b[k] ?? 0)) / Math.max(ops, 1)) * 100) / 100]));
    const relations = [...after.relations].map(([name, [hit, read, seq, seqRows]]) => {
      const [hit0, read0, seq0, seqRows0] = before.relations.get(name) ?? [0, 0, 0, 0];
      return { name, blocks: (hit + read - hit0 - read0) / ops, read: (read - read0) / ops, seqScans: (seq - seq0) / ops, seqRows: (seqRows - seqRows0) / ops };
    });
    return {
      database: per(after.database, before.database),
      wal: per(after.wal, before.wal),
      relations: relations
        .filter((r) => r.blocks > 0.05 || r.seqScans > 0)
        .sort((a, b) => b.blocks + b.seqRows - (a.blocks + a.seqRows))
        .slice(0, 14)
        .map((r) => ({ ...r, blocks: round2(r.blocks), read: round2(r.read), seqScans: round2(r.seqScans), seqRows: round2(r.seqRows) })),
    };
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
