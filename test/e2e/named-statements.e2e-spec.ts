import { refusalReason } from '../../src/common/database/sql';
import { describeBothDatabases } from './support/both-databases';

/**
 * Repeated statement texts run as named (prepared) statements on PostgreSQL and unnamed on the
 * embedded database (src/common/database/sql.ts): the same answers, errors and counts either way.
 */
describeBothDatabases('named statements', (getDb, kind) => {
  const prepared = async (): Promise<number> =>
    Number((await getDb().one<{ n: string }>(`SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE 'lw%'`))!.n);

  it('answers rows, one row and counts the same from the first call to the tenth, in and out of a transaction', async () => {
    const db = getDb();
    await db.tx(async (sql) => {
      for (let i = 0; i < 10; i++) {
        expect(await sql.rows<{ v: number }>(`SELECT $1::int + 1 AS v`, [i])).toEqual([{ v: i + 1 }]);
        expect(await sql.one<{ v: number }>(`SELECT $1::int * 2 AS v WHERE $1::int > 100`, [i])).toBeNull();
      }
    });
    for (let i = 0; i < 10; i++) expect(await db.one<{ v: string }>(`SELECT $1::text AS v`, [`x${i}`])).toEqual({ v: `x${i}` });
  });

  it('keeps the error shape callers read (refusalReason, driverError.code) on a repeated statement', async () => {
    const db = getDb();
    const refuse = `SELECT CASE WHEN $1::int > 0 THEN legwork_refuse('probe refused') END AS r`;
    for (let i = 0; i < 6; i++) {
      const error = await db.one(refuse, [1]).catch((e: unknown) => e);
      expect(refusalReason(error)).toBe('probe refused');
      expect(await db.one(refuse, [0])).toEqual({ r: null });
    }
    const error = await db.tx((sql) => sql.one(refuse, [1])).catch((e: unknown) => e);
    expect(refusalReason(error)).toBe('probe refused');
    // Any other failure still carries its SQLSTATE on the driver error (22012: division by zero).
    const divide = `SELECT 1 / ($1::int - 1) AS v`;
    for (let i = 0; i < 4; i++) {
      const e = (await db.one(divide, [1]).catch((x: unknown) => x)) as { driverError?: { code?: string } };
      expect(e.driverError?.code).toBe('22012');
    }
  });

  it('prepares repeated statements on PostgreSQL only, never on the embedded database', async () => {
    const db = getDb();
    for (let i = 0; i < 5; i++) await db.one(`SELECT $1::int AS named_probe_value`, [i]);
    if (kind === 'postgres') {
      // The pool's connections each prepare it once they run it; this read runs on one of them.
      expect(
        await db.tx(async (sql) => {
          for (let i = 0; i < 3; i++) await sql.one(`SELECT $1::int AS named_probe_tx`, [i]);
          return Number((await sql.one<{ n: string }>(`SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%named_probe_tx%'`))!.n);
        }),
      ).toBe(1);
    } else {
      expect(await prepared()).toBe(0);
    }
  });
});
