import { randomBytes } from 'node:crypto';
import { I64_MAX, formatHttp } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { httpDecimalSql, isoTimeSql } from '../../src/common/database/http-format.sql';
import { Environment, type TestApp } from './harness';

/** The SQL twins of the HTTP output forms give what the TypeScript originals give, on the database in use. */
describe('HTTP forms written by PostgreSQL', () => {
  let env: Environment;
  let app: TestApp;
  let query: (sql: string, params: unknown[]) => Promise<any[]>;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    const db = app.app.get(Database);
    query = (sql, params) => db.rows<Record<string, unknown>>(sql, params);
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  it('httpDecimalSql is formatHttp, from -(2^63) to 2^63 - 1', async () => {
    const edges = [0n, 1n, -1n, 999_999n, 1_000_000n, -1_000_001n, 12_500_000n, 150_000_000n, I64_MAX, -I64_MAX, -I64_MAX - 1n];
    const random = Array.from({ length: 300 }, () => BigInt.asIntN(64, randomBytes(8).readBigUInt64LE()) >> BigInt(randomBytes(1)[0] % 64));
    const values = [...edges, ...random];
    const rows = await query(`SELECT v::text AS v, ${httpDecimalSql('v')} AS text FROM unnest($1::bigint[]) AS t(v)`, [values.map(String)]);
    expect(rows.map((r) => r.text)).toEqual(values.map((v) => formatHttp(v)));
    expect((await query(`SELECT ${httpDecimalSql('NULL::bigint')} AS text`, []))[0].text).toBeNull();
  });

  it('isoTimeSql is toISOString of the Date node-postgres reads, microseconds and all', async () => {
    const times = [
      '2026-11-23 12:58:28.213456+00',
      '2026-11-23 12:58:28.999999+00',
      '1999-12-31 23:59:59.9996+00',
      '2026-01-01 00:00:00+00',
      '2026-03-04 05:06:07.1+02',
    ];
    const rows = await query(`SELECT t, ${isoTimeSql('t')} AS text FROM unnest($1::timestamptz[]) AS x(t)`, [times]);
    for (const r of rows) expect(r.text).toBe(new Date(r.t).toISOString());
    const [now] = await query(`SELECT t, ${isoTimeSql('t')} AS text FROM (SELECT clock_timestamp() AS t) x`, []);
    expect(now.text).toBe(new Date(now.t).toISOString());
  });
});
