import { randomInt } from 'node:crypto';
import type { Database } from '../../../src/common/database/database';
import type { Sql } from '../../../src/common/database/sql';
import { CompetitionRepository } from '../../../src/modules/competition/competition.repository';
import { MakerDirectoryRepository } from '../../../src/modules/competition/maker-directory.repository';
import { STATS_WINDOW_MS } from '../../../src/modules/competition/maker-directory.service';
import { uuidV7Hex } from '../../../src/modules/rfq/domain/uuid-v7';
import { describeBothDatabases } from '../support/both-databases';
import { TestWallet } from '../clients';

const NOW_MS = 1_795_000_000_000;
const DAY_MS = 24 * 3600 * 1000;
/** The tables whose rows grow with history: each read of them must be a range of an index bounded by the window. */
const GROWING = new Set(['rfqs', 'competition_panels', 'competition_quotes']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

/** The reads of growing tables in a plan that are not an index range bounded from below (`>=`: the window's start). */
function unbounded(node: PlanNode): string[] {
  const found: string[] = [];
  const table = node['Relation Name'];
  const cond = node['Index Cond'] ?? node['Recheck Cond'] ?? '';
  if (table && GROWING.has(table) && !(/Index|Bitmap Heap/.test(node['Node Type']) && cond.includes('>=')))
    found.push(`${node['Node Type']} on ${table} (${cond})`);
  for (const child of node.Plans ?? []) found.push(...unbounded(child));
  return found;
}

/** A `Sql` that runs on `db` and keeps what it ran. */
function recording(db: Database, ran: Array<{ text: string; params: readonly unknown[] }>): Sql {
  return {
    rows: (text, params = []) => (ran.push({ text, params }), db.rows(text, params)),
    one: (text, params = []) => (ran.push({ text, params }), db.one(text, params)),
    exec: (text, params = []) => db.exec(text, params),
    afterCommit: (fn) => fn(),
  };
}

/**
 * The makers directory's reads (docs/spec/design.md 18 "Choosing a panel", 17 "no request scans a
 * table whose size grows with history") on PostgreSQL and on embedded PGlite: the 7-day window's
 * counts, and plans that read every growing table through an index range starting at the window.
 */
describeBothDatabases('MakerDirectoryRepository', (getDb) => {
  let taker: number, alpha: number, beta: number;
  const since = NOW_MS - STATS_WINDOW_MS;

  const account = async (roles: string[]) => {
    const row = await getDb().one<{ id: string }>(`INSERT INTO accounts (wallet, roles) VALUES ($1, $2) RETURNING id`, [new TestWallet().address, roles]);
    return Number(row!.id);
  };
  /** An ended competitive RFQ created at `createdMs` by `by`, with `panel` (null: every quoter). */
  const rfq = async (createdMs: number, by: number, panel: number[] | null) => {
    const id = uuidV7Hex(createdMs, BigInt(randomInt(1, 2 ** 40)));
    const at = Math.floor(createdMs / 1000);
    await getDb().exec(
      `INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at, competition)
       VALUES ($1, $2, $5, '[]'::jsonb, 'SOL', $3, 'expired', $3, $3, $3, $3, $4::jsonb)`,
      [id, by, at, JSON.stringify({ makers: panel && panel.map(String), accounts: panel }), `ref-${id}`],
    );
    for (const maker of panel ?? []) await getDb().exec(`INSERT INTO competition_panels (maker_account_id, rfq_id) VALUES ($1, $2)`, [maker, id]);
    return id;
  };
  let nonce = 0n;
  /** A quote of `maker` received `afterMs` after the RFQ's creation, ended `end`. */
  const quoted = async (rfqId: string, maker: number, receivedAtMs: number, end: 'replaced' | 'accepted' | 'cancelled' | 'expired') => {
    const quoteId = (++nonce).toString(16).padStart(64, '0');
    const quotes = new CompetitionRepository(getDb());
    await getDb().tx(async (tx) => {
      const at = Math.floor(receivedAtMs / 1000);
      await quotes.insert(tx, rfqId, {
        quoteId,
        makerAccountId: maker,
        makerWallet: 'w',
        quoteNonce: nonce,
        bid: 1n,
        ask: 2n,
        issuedAt: at,
        expiresAt: at + 60,
        makerSignature: 's',
        receivedAtMs,
      });
      await quotes.end(tx, [quoteId], end, receivedAtMs + 1);
    });
  };

  beforeAll(async () => {
    [taker, alpha, beta] = [await account(['taker']), await account(['quoter', 'taker']), await account(['quoter'])];
    // Before the window: not counted, nor a quote of it received inside the window.
    const old = await rfq(since - 1000, taker, [alpha]);
    await quoted(old, alpha, since - 900, 'accepted');
    await quoted(old, alpha, since + 10, 'cancelled');
    const oldOpen = await rfq(since - DAY_MS, taker, null);
    await quoted(oldOpen, alpha, since - DAY_MS + 50, 'replaced');
    // In the window: a panel of alpha (quoted after 100 ms, replaced), an RFQ for every quoter (quoted after 500 ms, won), and one alpha asked itself.
    const paneled = await rfq(NOW_MS - DAY_MS, taker, [alpha]);
    await quoted(paneled, alpha, NOW_MS - DAY_MS + 100, 'replaced');
    await quoted(paneled, alpha, NOW_MS - DAY_MS + 300, 'cancelled');
    const open = await rfq(NOW_MS - 2 * DAY_MS, taker, null);
    await quoted(open, alpha, NOW_MS - 2 * DAY_MS + 500, 'accepted');
    await rfq(NOW_MS - 3 * DAY_MS, alpha, null);
    await rfq(NOW_MS - 1000, taker, [beta]);
  });

  it('counts the RFQs that reached each maker in the window, its quotes, and the median first response', async () => {
    const directory = new MakerDirectoryRepository(getDb());
    expect(await directory.stats(alpha, since)).toEqual({ rfqs: 2, quoted: 2, median_response_ms: 300, cancelled: 1, replaced: 1, won: 1 });
    expect(await directory.stats(beta, since)).toEqual({ rfqs: 3, quoted: 0, median_response_ms: null, cancelled: 0, replaced: 0, won: 0 });
    expect(await directory.stats(taker, since)).toMatchObject({ rfqs: 1, quoted: 0 });
  });

  it('lists the listed makers only, by wallet, each with the same stats', async () => {
    const directory = new MakerDirectoryRepository(getDb());
    expect(await directory.listed(since)).toEqual([]);
    await getDb().exec(`INSERT INTO maker_profiles (account_id, listed, name) VALUES ($1, true, 'Alpha'), ($2, false, 'Beta')`, [alpha, beta]);
    const listed = await directory.listed(since);
    expect(listed).toEqual([{ wallet: expect.any(String), name: 'Alpha', stats: await directory.stats(alpha, since) }]);
  });

  it('reads every growing table through an index range bounded by the window, with sequential scans priced out', async () => {
    const ran: Array<{ text: string; params: readonly unknown[] }> = [];
    const directory = new MakerDirectoryRepository(getDb());
    await directory.stats(alpha, since, recording(getDb(), ran));
    await directory.listed(since, recording(getDb(), ran));
    expect(ran).toHaveLength(2);
    for (const { text, params } of ran) {
      const plan = await getDb().tx(async (tx) => {
        await tx.exec('SET LOCAL enable_seqscan = off');
        return tx.rows<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> | string }>(`EXPLAIN (FORMAT JSON) ${text}`, params);
      });
      const json = plan[0]['QUERY PLAN'];
      const root = (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode;
      expect(unbounded(root)).toEqual([]);
    }
  });
});
