import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/common/database/database';
import { JournalRepository } from '../../src/modules/journal/journal.repository';
import { BalanceRepository } from '../../src/modules/ledger/balance.repository';
import { FillRepository } from '../../src/modules/ledger/fill.repository';
import { PositionRepository } from '../../src/modules/ledger/position.repository';
import { AccountEventRepository } from '../../src/modules/rfq/account-event.repository';
import { MoveRefused } from '../../src/modules/rfq/rfq-move';
import { RfqRepository } from '../../src/modules/rfq/rfq.repository';
import { describeBothDatabases } from './support/both-databases';
import { NOW, account, count, newRfq, quoteOf } from './support/repository-rows';

/**
 * The repositories of rfq, ledger and journal on both databases Legwork runs on: their
 * single-statement moves change everything they say or nothing at all.
 */
/** A fill of one leg of `symbol` (the taker buys 1 at 2, fee 10), the positions it leaves and the balance rows it writes. */
function oneLegFill(rfqId: string, taker: number, maker: number, fee: number, symbol: string) {
  const fill = {
    rfqId,
    quoteId: 'c'.repeat(64),
    takerAccountId: taker,
    makerAccountId: maker,
    feeAccountId: fee,
    side: 'buy' as const,
    price: 2_000_000n,
    fee: 10n,
    filledAt: NOW,
    legs: [{ instrument: symbol, quantity: 1_000_000n, premium: 2_000_000n, mark: 1_900_000n }],
  };
  const positions = [
    { accountId: taker, instrument: symbol, delta: 1_000_000n, position: { quantity: 1_000_000n, average: { n: 2n, d: 1n } } },
    { accountId: maker, instrument: symbol, delta: -1_000_000n, position: { quantity: -1_000_000n, average: { n: 2n, d: 1n } } },
  ];
  const rows = [
    { accountId: taker, row: { total: 8n, locked: 0n } },
    { accountId: maker, row: { total: 12n, locked: 5n } },
    { accountId: fee, row: { total: 10n, locked: 0n } },
  ];
  return { fill, positions, rows };
}

describeBothDatabases('rfq, ledger and journal repositories', (getDb) => {
  const rfqs = () => new RfqRepository(getDb());

  it('insertPending takes a slot below the limit; a taken client_ref or no slot inserts nothing and keeps no slot', async () => {
    const db = getDb();
    const taker = await account(db);
    const first = newRfq(taker);
    expect((await rfqs().insertPending(first, 2))?.state).toBe('pending');
    expect(await rfqs().insertPending({ ...newRfq(taker), clientRef: first.clientRef }, 2)).toBeNull();
    expect(await count(db, `SELECT open_rfqs AS n FROM accounts WHERE id = $1`, [taker])).toBe(1);
    expect((await rfqs().insertPending(newRfq(taker), 2))?.state).toBe('pending');
    expect(await rfqs().insertPending(newRfq(taker), 2)).toBeNull();
    expect(await count(db, `SELECT open_rfqs AS n FROM accounts WHERE id = $1`, [taker])).toBe(2);
    expect(await count(db, `SELECT count(*) AS n FROM rfqs WHERE account_id = $1`, [taker])).toBe(2);
    expect(await count(db, `SELECT count(*) AS n FROM rfq_events e JOIN rfqs r ON r.id = e.rfq_id WHERE r.account_id = $1`, [taker])).toBe(2);
  });

  it('a move from the wrong state, or past its deadline, changes nothing', async () => {
    const db = getDb();
    const taker = await account(db);
    const rfq = (await rfqs().insertPending(newRfq(taker), 5))!;
    expect(await rfqs().move(db, { rfqId: rfq.id, from: 'quoted', to: 'expired', at: NOW + 1 })).toBeNull();
    expect(await rfqs().move(db, { rfqId: rfq.id, from: 'pending', to: 'declined', at: NOW + 1, deadlineAfterMs: (NOW + 120) * 1000 })).toBeNull();
    expect((await rfqs().findById(rfq.id))?.state).toBe('pending');
    expect(await count(db, `SELECT count(*) AS n FROM rfq_events WHERE rfq_id = $1`, [rfq.id])).toBe(1);
    expect(await count(db, `SELECT count(*) AS n FROM account_events WHERE account_id = $1`, [taker])).toBe(0);

    const moved = await rfqs().move(db, {
      rfqId: rfq.id,
      from: 'pending',
      to: 'declined',
      at: NOW + 2,
      changes: { declineReason: 'size_limit', declinedBy: taker },
    });
    expect(moved).toMatchObject({ state: 'declined', endedAt: NOW + 2, accountSeqs: { rfq: 1 } });
    // The move gave the taker's slot back and stored its numbered event, in its own statement.
    expect(await count(db, `SELECT open_rfqs AS n FROM accounts WHERE id = $1`, [taker])).toBe(0);
    expect(await new AccountEventRepository(db).bounds(taker)).toEqual({ latest: 1, oldest: 1 });
  });

  it('moveToQuoted raises the nonce high-water mark with the move, and refuses both when the nonce does not rise', async () => {
    const db = getDb();
    const taker = await account(db);
    const maker = await account(db);
    const a = (await rfqs().insertPending(newRfq(taker), 5))!;
    const b = (await rfqs().insertPending(newRfq(taker), 5))!;
    expect(await rfqs().moveToQuoted(db, { rfqId: a.id, from: 'pending', to: 'quoted', at: NOW + 1 }, quoteOf(maker, 5n))).toMatchObject({ state: 'quoted' });
    expect(await rfqs().nonceHighWater(maker)).toBe(5n);

    await expect(rfqs().moveToQuoted(db, { rfqId: b.id, from: 'pending', to: 'quoted', at: NOW + 1 }, quoteOf(maker, 5n))).rejects.toBeInstanceOf(MoveRefused);
    expect((await rfqs().findById(b.id))?.state).toBe('pending');
    expect(await count(db, `SELECT count(*) AS n FROM rfq_events WHERE rfq_id = $1`, [b.id])).toBe(1);
    expect(await rfqs().nonceHighWater(maker)).toBe(5n);

    // Nothing moved: the mark does not rise either (a lost race leaves the nonce unused).
    expect(await rfqs().moveToQuoted(db, { rfqId: a.id, from: 'pending', to: 'quoted', at: NOW + 1 }, quoteOf(maker, 9n))).toBeNull();
    expect(await rfqs().nonceHighWater(maker)).toBe(5n);

    const top = 18_446_744_073_709_551_615n;
    expect(await rfqs().moveToQuoted(db, { rfqId: b.id, from: 'pending', to: 'quoted', at: NOW + 1 }, quoteOf(maker, top))).toMatchObject({
      quote: { quoteNonce: top },
    });
    expect(await rfqs().nonceHighWater(maker)).toBe(top);
  });

  it('moveToAccepted writes the accept row only with the move, read back by the fill lock', async () => {
    const db = getDb();
    const taker = await account(db);
    const maker = await account(db);
    const rfq = (await rfqs().insertPending(newRfq(taker), 5))!;
    const quote = quoteOf(maker, 1n);
    await rfqs().moveToQuoted(db, { rfqId: rfq.id, from: 'pending', to: 'quoted', at: NOW + 1 }, quote);
    const accept = { quoteId: quote.quoteId, side: 'buy' as const, fee: 10n, maxFee: 12n, takerSignature: 'T', expiresAt: NOW + 30, acceptedAt: NOW + 2 };
    // Past the quote's deadline: no move, no accept row.
    expect(
      await rfqs().moveToAccepted(db, { rfqId: rfq.id, from: 'quoted', to: 'accepted', at: NOW + 2, deadlineAfterMs: (NOW + 60) * 1000 }, accept),
    ).toBeNull();
    expect(await count(db, `SELECT count(*) AS n FROM accepts WHERE rfq_id = $1`, [rfq.id])).toBe(0);

    expect(await rfqs().moveToAccepted(db, { rfqId: rfq.id, from: 'quoted', to: 'accepted', at: NOW + 2 }, accept)).toMatchObject({
      state: 'accepted',
      acceptedSide: 'buy',
    });
    const locks = await db.tx((sql) => new FillRepository(db).lockForFill(sql, rfq.id, ['SOL-27DEC26-150-C']));
    expect(locks).toMatchObject({ state: 'accepted', accept: { rfqId: rfq.id, ...accept }, settled: [] });
    expect(await db.tx((sql) => new FillRepository(db).lockForFill(sql, 'f'.repeat(32), []))).toBeNull();
  });

  it('expireDue moves only what is due, with its events and slots, and leaves the rest', async () => {
    const db = getDb();
    const taker = await account(db);
    const due = (await rfqs().insertPending(newRfq(taker, { expiresAt: NOW - 10 }), 5))!;
    const later = (await rfqs().insertPending(newRfq(taker, { expiresAt: NOW + 600 }), 5))!;
    const moved = await rfqs().expireDue(NOW, 500, getDb());
    expect(moved.map((r) => r.id)).toContain(due.id);
    expect(moved.map((r) => r.id)).not.toContain(later.id);
    expect((await rfqs().findById(later.id))?.state).toBe('pending');
    expect(await count(db, `SELECT open_rfqs AS n FROM accounts WHERE id = $1`, [taker])).toBe(1);
  });

  it('balance rows: setMany writes all or throws (rolled back), a transfer reference is claimed once', async () => {
    const db = getDb();
    const balances = new BalanceRepository(db);
    const a = await account(db);
    const b = await account(db);
    await db.tx((tx) => balances.ensureRow(tx, a));
    await expect(
      db.tx((sql) =>
        balances.setMany(sql, [
          { accountId: a, row: { total: 5n, locked: 1n } },
          { accountId: b, row: { total: 7n, locked: 0n } },
        ]),
      ),
    ).rejects.toThrow('1 balance rows updated of 2');
    expect((await balances.rowsOf(db, [a, b])).get(a)).toEqual({ total: 0n, locked: 0n });
    await db.tx(async (tx) => {
      await balances.ensureRow(tx, b);
      await balances.setMany(tx, [
        { accountId: a, row: { total: 5n, locked: 1n } },
        { accountId: b, row: { total: 7n, locked: 0n } },
      ]);
    });
    expect(await balances.rowsOf(db, [b, a])).toEqual(
      new Map([
        [a, { total: 5n, locked: 1n }],
        [b, { total: 7n, locked: 0n }],
      ]),
    );

    const reference = randomBytes(8).toString('hex');
    expect(await db.tx((tx) => balances.claimTransfer(tx, { accountId: a, kind: 'deposit', amount: 3n, reference }))).toBe(true);
    expect(await db.tx((tx) => balances.claimTransfer(tx, { accountId: b, kind: 'deposit', amount: 3n, reference }))).toBe(false);
    expect(await balances.transferByReference(db, reference)).toEqual({ accountId: a, kind: 'deposit', amount: 3n });
    expect(await balances.underCollateralized()).toEqual([]);
  });

  /** A listed call of a round of its own (the instruments module's rows, written here as fixtures). */
  async function instrument(db: Database): Promise<string> {
    const asset = `R${randomBytes(3).toString('hex').toUpperCase()}`;
    const expiry = NOW + 86_400;
    await db.exec(`INSERT INTO expirations (asset, expiry, utc_date) VALUES ($1, $2::bigint, to_timestamp($2::bigint)::date)`, [asset, expiry]);
    await db.exec(`INSERT INTO instruments (symbol, asset, expiry, strike, kind) VALUES ($1, $2, $3, 1000000, 'call')`, [`${asset}-C1`, asset, expiry]);
    return `${asset}-C1`;
  }

  it('a position write that does not end where the caller computed throws and writes nothing', async () => {
    const db = getDb();
    const positions = new PositionRepository(db);
    const a = await account(db);
    const symbol = await instrument(db);
    const write = { accountId: a, instrument: symbol, delta: 2n, position: { quantity: 3n, average: { n: 1n, d: 1n } } };
    await expect(db.tx((sql) => positions.write(sql, [write]))).rejects.toThrow('changed under the ledger');
    expect(await count(db, `SELECT count(*) AS n FROM positions WHERE account_id = $1`, [a])).toBe(0);
    await db.tx((tx) => positions.write(tx, [{ ...write, position: { quantity: 2n, average: { n: 1n, d: 1n } } }]));
    expect((await positions.openOf(db, [a])).get(a)).toMatchObject([{ instrument: symbol, quantity: 2n, average: { n: 1n, d: 1n } }]);
  });

  it('a fill is one statement over fills, legs, positions and balance rows: all of it, or none; its receipt moves the journal head', async () => {
    const db = getDb();
    const fills = new FillRepository(db);
    const balances = new BalanceRepository(db);
    const journal = new JournalRepository(db);
    const [taker, maker, fee] = [await account(db), await account(db), await account(db)];
    const symbol = await instrument(db);
    const rfq = (await rfqs().insertPending(newRfq(taker, { legs: [{ instrument: symbol, quantity: '1' }] }), 5))!;
    const { fill, positions, rows } = oneLegFill(rfq.id, taker, maker, fee, symbol);
    await db.tx(async (tx) => {
      for (const id of [taker, maker]) await balances.ensureRow(tx, id);
    });
    // The fee account has no balance row: the statement throws, and nothing of it stays.
    await expect(db.tx((sql) => fills.record(sql, fill, positions, rows))).rejects.toThrow('2 balance rows updated of 3');
    expect(await fills.findByRfq(db, rfq.id)).toBeNull();
    expect(await count(db, `SELECT count(*) AS n FROM positions WHERE instrument = $1`, [symbol])).toBe(0);

    await db.tx((tx) => balances.ensureRow(tx, fee));
    const before = await journal.segment(0, 1);
    const fillId = await db.tx(async (sql) => {
      const id = await fills.record(sql, fill, positions, rows);
      const head = await journal.lockHead(sql);
      await journal.appendReceipt(sql, {
        journalSeq: head.journalSeq + 1n,
        kind: 0,
        fillId: id,
        payload: Buffer.from('receipt'),
        hash: randomBytes(32).toString('hex'),
        prevHash: head.hash,
        keyId: 'k'.repeat(16),
        signature: 's',
        at: NOW,
      });
      return id;
    });
    expect(await fills.findByRfq(db, rfq.id)).toMatchObject({
      fillId,
      price: 2_000_000n,
      reverted: false,
      legs: [{ instrument: symbol, quantity: 1_000_000n }],
    });
    expect(await balances.rowsOf(db, [taker, maker, fee])).toEqual(new Map(rows.map((r) => [r.accountId, r.row])));
    expect((await journal.segment(0, 1)).head.journal_seq).toBe(before.head.journal_seq + 1);
    expect((await journal.receiptsOf([fillId])).get(fillId)?.fill).toMatchObject({ kind: 0, payload: Buffer.from('receipt').toString('base64') });

    await db.tx((sql) => fills.markReverted(sql, fillId, NOW + 5));
    await expect(db.tx((sql) => fills.markReverted(sql, fillId, NOW + 6))).rejects.toThrow('reverted already');
    expect(await fills.replayPositions(db, [taker, maker], [symbol])).toEqual(new Map());
  });
});
