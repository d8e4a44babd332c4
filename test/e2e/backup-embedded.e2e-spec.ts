import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/common/database/database';
import { Http } from './clients';
import { ADMIN_TOKEN, JWT_SECRET, METRICS_TOKEN, TestApp } from './harness';
import { type RfqTrader, expirationIn, leg, listRound, sleep } from './rfq-support';
import { ROOT, Traffic, cli, execAsync, expectConsistentCopy, journalHead } from './support/backup';
import { acceptAndFill, marketData, pair, quoted } from './support/ledger';
import { scratchDir } from './support/scratch-dir';

/**
 * docs/spec/design.md section 17, "Backups", embedded mode (whatever the test run's own services:
 * the embedded database is the subject): `npm run cli -- backup` takes the file from the running
 * exchange while takers and makers trade; `npm run cli -- restore` writes a new DATA_DIR from it;
 * the exchange booted on that copy holds exactly the source's fills at the backup's moment, each
 * whole, its ledger's invariants hold and its journal verifies, and it trades on.
 */
describe('embedded backup under load (design.md section 17)', () => {
  const work = scratchDir('legwork-backup-');
  const sourceDir = join(work, 'source');
  const copyDir = join(work, 'copy');
  const file = join(work, 'legwork.backup');
  const base = {
    ADMIN_TOKEN,
    JWT_SECRET,
    LOG_LEVEL: 'error',
    TRUST_PROXY: 'true',
    METRICS_TOKEN,
    PUBLIC_RATE_PER_SECOND: '1000000',
    PUBLIC_RATE_BURST: '1000000',
    MARKET_DATA_MAX_AGE_SECONDS: '3600',
    RFQ_RATE_PER_SECOND: '100000',
    RFQ_RATE_BURST: '100000',
  };
  let source: TestApp | undefined;
  let copy: TestApp | undefined;
  const traders: RfqTrader[] = [];

  beforeAll(async () => {
    // The CLI the test runs, built as `npm run cli` would; `npm test` built it before its workers
    // started (LEGWORK_PREBUILT=1), and a rebuild that finds nothing to do still took 10 to 20 s.
    if (process.env.LEGWORK_PREBUILT !== '1') await execAsync('npm', ['run', '-s', 'tools:build'], { cwd: ROOT, timeout: 240_000 });
  }, 300_000);
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await source?.close();
    await copy?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('a backup taken mid-traffic restores to a copy that holds the fills of its moment, whole, with the invariants and the journal', async () => {
    source = await TestApp.start({ ...base, DATA_DIR: sourceDir });
    // The copy waits for the open transaction: it is taken between two transactions, never inside one.
    const db = source.app.get(Database);
    const order: string[] = [];
    let snapshot: Promise<Buffer> | undefined;
    await db.tx(async (sql) => {
      await sql.exec('SELECT 1');
      // eslint-disable-next-line legwork/transaction-executor -- on purpose: the copy must wait for this transaction
      snapshot = db.embeddedSnapshot().then((tar) => (order.push('copied'), tar));
      await sleep(300);
      order.push('committed');
    });
    expect((await snapshot!).length).toBeGreaterThan(0);
    expect(order).toEqual(['committed', 'copied']);

    const round = await listRound(source, 'SOL', expirationIn(10));
    await marketData(source, 'SOL', '150', '0.8');
    const { traffic, traders: busy } = await Traffic.start(source, round, 4);
    traders.push(...busy);
    await traffic.more(6);

    const before = (await journalHead(source)).journal_seq;
    const backup = await cli(['backup', '--url', source.url, '--admin-token', ADMIN_TOKEN, '--out', file, '--json']);
    const after = (await journalHead(source)).journal_seq;
    if (backup.code !== 0) throw new Error(backup.out);
    const written = JSON.parse(backup.out);
    expect(written).toEqual({ file, bytes: statSync(file).size, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), paused_ms: expect.any(Number) });
    // Trading waited for the copy, within the pool's 10 s connection timeout: no call failed (traffic.errors below).
    expect(written.paused_ms).toBeLessThan(10_000);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Trading went on during the backup and after it: the copy is of a moment, not of the end.
    await traffic.more(4);
    await traffic.stop();
    expect(traffic.errors).toEqual([]);

    // The backup is an admin command in the audit log.
    const [audit] = (await new Http(source.url).admin().get('/v1/admin/audit?action=backup')).body.rows;
    expect(audit).toMatchObject({ action: 'backup', status: 200, actor: { via: 'admin_token' } });

    const restore = await cli(['restore', '--in', file, '--data-dir', copyDir, '--signing-key', join(sourceDir, 'exchange-signing-key'), '--json']);
    if (restore.code !== 0) throw new Error(restore.out);
    const summary = JSON.parse(restore.out);
    expect(summary).toMatchObject({ data_dir: copyDir, signing_key: true, migration: expect.any(String) });
    expect(statSync(copyDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(copyDir, 'exchange-signing-key'), 'utf8')).toBe(readFileSync(join(sourceDir, 'exchange-signing-key'), 'utf8'));
    expect((await journalHead(source)).journal_seq).toBeGreaterThan(summary.journal_seq);

    copy = await TestApp.start({ ...base, DATA_DIR: copyDir });
    await expectConsistentCopy(source, copy, summary, before, after);
    // The same exchange key: the copy's receipts verify with the key the source published.
    expect((await new Http(copy.url).get('/v1/exchange/keys')).body).toEqual((await new Http(source.url).get('/v1/exchange/keys')).body);

    // The copy trades on: a new fill extends its journal, which still verifies.
    const { taker, maker } = await pair(copy, '1000', '10000');
    traders.push(taker, maker);
    const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')]);
    expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    expect((await journalHead(copy)).journal_seq).toBeGreaterThan(summary.journal_seq);
  }, 180_000);
});
