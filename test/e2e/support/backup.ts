import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Database } from '../../../src/common/database/database';
import { Http } from '../clients';
import type { TestApp } from '../harness';
import { type Rows, appRows, violations } from '../invariants';
import { type RfqTrader, type Round, leg, sleep } from '../rfq-support';
import { acceptAndFill, pair, quoted } from './ledger';

/**
 * The backup tests' shared parts (docs/spec/design.md section 17, docs/operations.md "Backups"):
 * trading traffic through the real app while the backup is taken, and the checks of the restored
 * copy against its source.
 */

export const execAsync = promisify(execFile);
export const ROOT = join(__dirname, '..', '..', '..');

/** `npm run -s cli -- <args>` (the built CLI): exit code and output. */
export async function cli(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await execAsync('node', [join(ROOT, 'dist-tools/src/cli.js'), ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (error: any) {
    return { code: typeof error.code === 'number' ? error.code : -1, out: `${error.stdout ?? ''}${error.stderr ?? ''}` };
  }
}

/**
 * Takers and makers running whole lifecycles concurrently (create, quote, accept, fill), each
 * pair in a loop, until `stop`. Sides and legs vary so that positions, locks and fees move.
 */
export class Traffic {
  private running = true;
  private readonly loops: Promise<void>[];
  filled = 0;
  readonly errors: unknown[] = [];

  private constructor(
    private readonly round: Round,
    pairs: Array<{ taker: RfqTrader; maker: RfqTrader }>,
  ) {
    this.loops = pairs.map((p, i) => this.loop(p, i));
  }

  static async start(app: TestApp, round: Round, pairs: number): Promise<{ traffic: Traffic; traders: RfqTrader[] }> {
    const made = await Promise.all(Array.from({ length: pairs }, () => pair(app, '100000', '1000000')));
    return { traffic: new Traffic(round, made), traders: made.flatMap((p) => [p.taker, p.maker]) };
  }

  private async loop({ taker, maker }: { taker: RfqTrader; maker: RfqTrader }, index: number): Promise<void> {
    const strikes = ['140', '150', '160'];
    for (let n = 0; this.running; n++) {
      try {
        const strike = strikes[(index + n) % strikes.length];
        const legs = n % 2 === 0 ? [leg(this.round.symbol(strike), '1')] : [leg(this.round.symbol(strike), '2'), leg(this.round.symbol('140', 'put'), '-1')];
        const q = await quoted(taker, maker, this.round.expiry, legs);
        const end = await acceptAndFill(taker, q, (index + n) % 3 === 0 ? 'sell' : 'buy');
        if (end.state === 'filled') this.filled++;
      } catch (error) {
        if (this.running) this.errors.push(error);
      }
    }
  }

  /** Resolves once `count` fills more than now have been made. */
  async more(count: number, timeoutMs = 30_000): Promise<void> {
    const target = this.filled + count;
    const deadline = Date.now() + timeoutMs;
    while (this.filled < target) {
      if (Date.now() > deadline) throw new Error(`traffic: ${this.filled} fills, waited for ${target}; errors: ${this.errors.map(String).join('; ')}`);
      await sleep(25);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/** The journal's head as the app states it. */
export async function journalHead(app: TestApp): Promise<{ journal_seq: number; hash: string }> {
  return (await new Http(app.url).get('/v1/exchange/journal?after=0&limit=1')).body.head;
}

/** Every fill with its receipt, in journal order: what must be equal in a copy and its source. */
async function fillsWithReceipts(rows: Rows): Promise<any[]> {
  return rows(`
    SELECT f.id::text, f.rfq_id, f.side, f.price::text, f.fee::text, f.filled_at::text, r.journal_seq::int, r.hash, r.prev_hash,
           (SELECT count(*)::int FROM fill_legs l WHERE l.fill_id = f.id) AS legs, q.state
      FROM fills f LEFT JOIN receipts r ON r.fill_id = f.id AND r.kind = 0 JOIN rfqs q ON q.id = f.rfq_id
     ORDER BY r.journal_seq NULLS FIRST, f.id`);
}

/** What the restore reads from the copy before any exchange runs on it (the CLI's summary, or SQL on PostgreSQL). */
export interface CopySummary {
  fills: number;
  journal_seq: number;
  journal_hash: string;
  /**
   * Fills of the copy whose receipt was still staged (journal_pending) at the backup: committed,
   * not yet chained. The copy chains them itself as it boots, after its head, as the source did.
   */
  staged_fills?: number;
}

/**
 * The copy, booted, against its source: the source's journal head was `before` when the backup
 * began and `after` when it ended; the copy's head (read before it booted) is between, and the
 * copy holds exactly the source's fills up to that head, each whole (legs, receipt, RFQ filled),
 * with the same receipts; the ledger's invariants hold; `verify-journal` passes on the copy.
 */
export async function expectConsistentCopy(source: TestApp, copy: TestApp, summary: CopySummary, before: number, after: number): Promise<void> {
  expect(summary.journal_seq).toBeGreaterThanOrEqual(before);
  expect(summary.journal_seq).toBeLessThanOrEqual(after);
  expect(summary.journal_seq).toBeGreaterThan(0);

  const sourceFills = await fillsWithReceipts(appRows(source));
  const atBackup = sourceFills.filter((f) => f.journal_seq !== null && f.journal_seq <= summary.journal_seq);
  expect(summary.fills).toBe(atBackup.length + (summary.staged_fills ?? 0));
  // A staged fill of the copy is one the source chained after the backup's head.
  expect(sourceFills.filter((f) => f.journal_seq !== null && f.journal_seq > summary.journal_seq).length).toBeGreaterThanOrEqual(summary.staged_fills ?? 0);
  expect(atBackup.at(-1).hash).toBe(summary.journal_hash);
  // The copy after boot: what it held at the backup is unchanged (an accepted RFQ of the copy may fill since).
  // (Its staged fills, and the RFQs it fills since, are chained after the head, or not yet.)
  const copyFills = (await fillsWithReceipts(appRows(copy))).filter((f) => f.journal_seq !== null && f.journal_seq <= summary.journal_seq);
  expect(copyFills).toEqual(atBackup);
  for (const f of copyFills) {
    expect(f.legs).toBeGreaterThan(0);
    expect(f.state).toBe('filled');
  }

  // Read in one snapshot: the copy fills the RFQs accepted before the backup as it boots, and a fill
  // committed between two of the invariants' reads looked like a broken one ((c): locks against positions).
  const broken = await copy.app.get(Database).tx((tx) => violations((sql, params) => tx.rows(sql, params)), 'REPEATABLE READ');
  expect(broken).toEqual([]);
  const verified = await cli(['verify-journal', '--url', copy.url]);
  expect(verified.out).toMatch(/^journal ok: \d+ receipts/);
  expect(verified.code).toBe(0);
}
