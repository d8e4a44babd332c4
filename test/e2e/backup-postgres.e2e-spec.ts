import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, expirationIn, leg, listRound } from './rfq-support';
import { type CopySummary, ROOT, Traffic, execAsync, expectConsistentCopy, journalHead } from './support/backup';
import { acceptAndFill, marketData, pair, quoted } from './support/ledger';

/**
 * docs/spec/design.md section 17, "Backups", PostgreSQL mode: exactly what docs/operations.md
 * says, with the machine's client binaries: `pg_dump -Fc` while takers and makers trade, then
 * `pg_restore --no-owner --exit-on-error -j 2` into a new empty database; the exchange booted on
 * it holds exactly the source's fills at the dump's moment, each whole, its ledger's invariants
 * hold, its journal verifies, and it trades on. Runs when DATABASE_URL is set.
 */
function binariesMissing(): string | null {
  for (const tool of ['pg_dump', 'pg_restore']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (the PostgreSQL client binaries: apt-get install postgresql-client)`;
    }
  }
  return null;
}

const base = process.env.DATABASE_URL;
const skip = !base ? 'DATABASE_URL is not set: the embedded backup is backup-embedded.e2e-spec.ts' : binariesMissing();
const suite = skip ? describe.skip : describe;
if (skip) console.warn(`backup-postgres.e2e-spec.ts skipped: ${skip}`);

suite(`PostgreSQL backup under load with pg_dump and pg_restore (design.md section 17)${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'legwork-pgbackup-'));
  const file = join(work, 'legwork.dump');
  let env: Environment;
  let source: TestApp | undefined;
  let copy: TestApp | undefined;
  let copyUrl: string;
  let copyDb: string;
  const traders: RfqTrader[] = [];

  const onServer = async <T>(fn: (c: Client) => Promise<T>, url = base!): Promise<T> => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    // verify-journal runs from the built CLI; `npm test` built it before its jest workers started
    // (LEGWORK_PREBUILT=1), and a rebuild that finds nothing to do still took 10 to 20 s.
    if (process.env.LEGWORK_PREBUILT !== '1') await execAsync('npm', ['run', '-s', 'tools:build'], { cwd: ROOT, timeout: 240_000 });
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
    const url = new URL(env.env.DATABASE_URL);
    copyDb = `${url.pathname.slice(1)}_copy`;
    url.pathname = `/${copyDb}`;
    copyUrl = url.toString();
  }, 300_000);
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await source?.close();
    await copy?.close();
    if (copyDb) await onServer((c) => c.query(`DROP DATABASE IF EXISTS ${copyDb} WITH (FORCE)`)).catch(() => undefined);
    await env?.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('a dump taken mid-traffic restores into an empty database that holds the fills of its moment, whole, with the invariants and the journal', async () => {
    source = await env.start();
    const round = await listRound(source, 'SOL', expirationIn(10));
    await marketData(source, 'SOL', '150', '0.8');
    const { traffic, traders: busy } = await Traffic.start(source, round, 4);
    traders.push(...busy);
    await traffic.more(6);

    const before = (await journalHead(source)).journal_seq;
    await execAsync('pg_dump', ['-Fc', '-f', file, env.env.DATABASE_URL], { timeout: 60_000 });
    const after = (await journalHead(source)).journal_seq;
    await traffic.more(4);
    await traffic.stop();
    expect(traffic.errors).toEqual([]);

    // The exchange's own backup route is for the embedded database: refused here, and recorded.
    const refused = await new Http(source.url).admin().post('/v1/admin/backup', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/pg_dump/);
    const [audit] = (await new Http(source.url).admin().get('/v1/admin/audit?action=backup')).body.rows;
    expect(audit).toMatchObject({ action: 'backup', status: 409 });

    await onServer((c) => c.query(`CREATE DATABASE ${copyDb}`));
    await execAsync('pg_restore', ['--no-owner', '--exit-on-error', '-j', '2', '-d', copyUrl, file], { timeout: 60_000 });
    const summary = await onServer(async (c): Promise<CopySummary & { migrations: number }> => {
      const fills = (await c.query('SELECT count(*)::int AS n FROM fills')).rows[0].n;
      // pg_dump's snapshot may hold fills committed but not yet chained: their receipts are staged.
      const staged = (await c.query('SELECT count(*)::int AS n FROM journal_pending WHERE kind = 0')).rows[0].n;
      const head = (await c.query('SELECT journal_seq::int AS seq, hash FROM receipts ORDER BY journal_seq DESC LIMIT 1')).rows[0];
      const migrations = (await c.query('SELECT count(*)::int AS n FROM migrations')).rows[0].n;
      return { fills, staged_fills: staged, journal_seq: head.seq, journal_hash: head.hash, migrations };
    }, copyUrl);
    // The migrations table came with the data: the copy boots without applying any.
    expect(summary.migrations).toBe(await onServer(async (c) => (await c.query('SELECT count(*)::int AS n FROM migrations')).rows[0].n, env.env.DATABASE_URL));
    expect((await journalHead(source)).journal_seq).toBeGreaterThan(summary.journal_seq);

    // Its own Redis key prefix: a copy that shared its source's would share its job queues.
    copy = await env.start({ DATABASE_URL: copyUrl, REDIS_PREFIX: `${env.env.REDIS_PREFIX}_copy` });
    await expectConsistentCopy(source, copy, summary, before, after);
    expect((await new Http(copy.url).get('/v1/exchange/keys')).body).toEqual((await new Http(source.url).get('/v1/exchange/keys')).body);

    // The copy trades on: a new fill extends its journal.
    const { taker, maker } = await pair(copy, '1000', '10000');
    traders.push(taker, maker);
    const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')]);
    expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    expect((await journalHead(copy)).journal_seq).toBeGreaterThan(summary.journal_seq);
  }, 180_000);
});
