import type { Sql, Tx } from '../database/sql';
import type { Row } from '../database/table';

/**
 * The only reader and writer of `view_versions` (docs/spec/design.md section 11): one row per view topic,
 * its version bumped in the transaction of every change of the view's tables. Each method runs
 * on the pool, or on the `Sql` of the caller's transaction.
 */
export class ViewVersionRepository {
  constructor(private readonly db: Sql) {}

  /** Bumps the topic's version and answers the new one (1 for its first change). */
  async bump(topic: string, tx: Tx): Promise<bigint> {
    const row = await tx.one<Row<'view_versions', 'version'>>(
      `INSERT INTO view_versions (topic, version) VALUES ($1, 1)
       ON CONFLICT (topic) DO UPDATE SET version = view_versions.version + 1 RETURNING version`,
      [topic],
    );
    return BigInt(row!.version);
  }

  /** The committed versions of the topics that have one (a topic never changed has no row). */
  async read(topics: readonly string[], sql: Sql = this.db): Promise<Map<string, bigint>> {
    const rows = await sql.rows<Row<'view_versions', 'topic' | 'version'>>(`SELECT topic, version FROM view_versions WHERE topic = ANY($1::text[])`, [topics]);
    return new Map(rows.map((r) => [r.topic, BigInt(r.version)]));
  }
}
