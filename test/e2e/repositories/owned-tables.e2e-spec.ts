import { ViewVersionRepository } from '../../../src/common/broadcast/view-version.repository';
import { FEE_ACCOUNT_WALLET } from '@legwork/protocol';
import { AppError } from '../../../src/common/errors/app-error';
import type { AccountAccessService } from '../../../src/modules/accounts/account-access.service';
import { ACCOUNT_ACCESS_CHANGED } from '../../../src/modules/accounts/account-access.service';
import { AccountRepository } from '../../../src/modules/accounts/account.repository';
import { AccountsService } from '../../../src/modules/accounts/accounts.service';
import { NonceRepository } from '../../../src/modules/auth/nonce.repository';
import { InstrumentRepository } from '../../../src/modules/instruments/instrument.repository';
import { FillReadsRepository } from '../../../src/modules/ledger/fill-reads.repository';
import { MarketDataRepository } from '../../../src/modules/market-data/market-data.repository';
import { RfqReadsRepository } from '../../../src/modules/rfq/rfq-reads.repository';
import { describeBothDatabases } from '../support/both-databases';
import { TestWallet } from '../clients';

/**
 * The repositories of the accounts, auth, instruments and market-data modules, of common's
 * view_versions, and the console's read repositories, on PostgreSQL and on embedded PGlite: each
 * statement does what its method says, on both.
 */
describeBothDatabases('owned-table repositories', (getDb) => {
  describe('ViewVersionRepository', () => {
    it('bumps from 1, reads what committed, and a rolled-back bump leaves nothing', async () => {
      const versions = new ViewVersionRepository(getDb());
      expect(await versions.read(['t.a'])).toEqual(new Map());
      expect(await getDb().tx((tx) => versions.bump('t.a', tx))).toBe(1n);
      expect(await getDb().tx((tx) => versions.bump('t.a', tx))).toBe(2n);
      await expect(
        getDb().tx(async (sql) => {
          expect(await versions.bump('t.a', sql)).toBe(3n);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await versions.read(['t.a', 't.none'])).toEqual(new Map([['t.a', 2n]]));
    });
  });

  describe('AccountRepository and AccountsService', () => {
    const access = () => {
      const changed = jest.fn(async () => undefined);
      return { changed, service: new AccountsService(getDb(), new AccountRepository(getDb()), { changed } as unknown as AccountAccessService) };
    };

    it('creates once per wallet; finds by id and wallet; the fee account is ensured once', async () => {
      const accounts = new AccountRepository(getDb());
      const wallet = new TestWallet().address;
      const created = await getDb().tx((tx) => accounts.insert(wallet, ['taker'], tx));
      expect(created).toMatchObject({ wallet, roles: ['taker'], sessionsRevokedAt: 0 });
      expect(await getDb().tx((tx) => accounts.insert(wallet, [], tx))).toBeNull();
      expect(await accounts.findById(created!.id)).toEqual(created);
      expect(await accounts.findByWallet(wallet)).toEqual(created);
      expect(await accounts.findByWallet(new TestWallet().address)).toBeNull();
      const fee = await accounts.ensure(FEE_ACCOUNT_WALLET, getDb());
      expect(await accounts.ensure(FEE_ACCOUNT_WALLET, getDb())).toBe(fee);
      expect(await accounts.accessOf([created!.id, fee, 999_999])).toEqual(
        expect.arrayContaining([
          { id: created!.id, roles: ['taker'], sessionsRevokedAt: 0 },
          { id: fee, roles: [], sessionsRevokedAt: 0 },
        ]),
      );
    });

    it('never changes the fee account, and a revocation never moves back', async () => {
      const accounts = new AccountRepository(getDb());
      const fee = await accounts.ensure(FEE_ACCOUNT_WALLET, getDb());
      expect(await getDb().tx((tx) => accounts.setRoles(fee, ['admin'], FEE_ACCOUNT_WALLET, tx))).toBeNull();
      expect(await getDb().tx((tx) => accounts.revokeSessions(fee, 100, FEE_ACCOUNT_WALLET, tx))).toBeNull();
      const { id } = (await getDb().tx((tx) => accounts.insert(new TestWallet().address, [], tx)))!;
      expect(await getDb().tx((tx) => accounts.revokeSessions(id, 2000, FEE_ACCOUNT_WALLET, tx))).toBe(2000);
      expect(await getDb().tx((tx) => accounts.revokeSessions(id, 1000, FEE_ACCOUNT_WALLET, tx))).toBe(2000);
      expect((await getDb().tx((tx) => accounts.setRoles(id, ['quoter'], FEE_ACCOUNT_WALLET, tx)))?.roles).toEqual(['quoter']);
    });

    it('a role change bumps the access version in its transaction; a change of nothing bumps nothing', async () => {
      const versions = new ViewVersionRepository(getDb());
      const { service, changed } = access();
      const account = await service.create(new TestWallet().address, ['taker']);
      const before = (await versions.read([ACCOUNT_ACCESS_CHANGED])).get(ACCOUNT_ACCESS_CHANGED)!;
      expect(changed).toHaveBeenLastCalledWith(account.id, before);

      expect((await service.setRoles(account.id, ['quoter'])).roles).toEqual(['quoter']);
      expect(changed).toHaveBeenLastCalledWith(account.id, before + 1n);
      expect((await versions.read([ACCOUNT_ACCESS_CHANGED])).get(ACCOUNT_ACCESS_CHANGED)).toBe(before + 1n);

      await expect(service.setRoles(999_999, ['quoter'])).rejects.toThrow(AppError);
      await expect(service.create(account.wallet, [])).rejects.toThrow('this wallet has an account already');
      expect((await versions.read([ACCOUNT_ACCESS_CHANGED])).get(ACCOUNT_ACCESS_CHANGED)).toBe(before + 1n);
      expect(changed).toHaveBeenCalledTimes(2);
    });
  });

  describe('NonceRepository', () => {
    it('a nonce is used once, by its wallet only; a fourth live nonce evicts the oldest; expired ones are purged', async () => {
      const nonces = new NonceRepository(getDb());
      const wallet = new TestWallet().address;
      for (const n of ['1', '2', '3', '4']) await nonces.add(wallet, n.repeat(32), 1000, 500, 3);
      expect(await nonces.take(wallet, '1'.repeat(32))).toBeNull(); // evicted
      expect(await nonces.take(new TestWallet().address, '2'.repeat(32))).toBeNull(); // not this wallet's
      expect(await nonces.take(wallet, '2'.repeat(32))).toBe(1000);
      expect(await nonces.take(wallet, '2'.repeat(32))).toBeNull(); // single use

      await nonces.add(wallet, '5'.repeat(32), 1100, 500, 3);
      expect(await nonces.purgeExpired(1050)).toBe(2); // 3 and 4
      expect(await nonces.take(wallet, '5'.repeat(32))).toBe(1100);
    });

    it('adding drops the wallet’s expired nonces first', async () => {
      const nonces = new NonceRepository(getDb());
      const wallet = new TestWallet().address;
      await nonces.add(wallet, 'a'.repeat(32), 100, 0, 3);
      await nonces.add(wallet, 'b'.repeat(32), 1000, 500, 3);
      expect(await nonces.take(wallet, 'a'.repeat(32))).toBeNull();
      expect(await nonces.take(wallet, 'b'.repeat(32))).toBe(1000);
    });
  });

  describe('InstrumentRepository and MarketDataRepository', () => {
    const EXPIRY = 4_000_000_000;
    const instrument = (strike: bigint, kind: 'call' | 'put') => ({ symbol: `RPO-1OCT96-${strike / 1_000_000n}-${kind === 'call' ? 'C' : 'P'}`, strike, kind });
    const listing = [instrument(100_000_000n, 'call'), instrument(100_000_000n, 'put'), instrument(110_000_000n, 'call')];

    it('lists a round once, pauses it, and answers the reads the market-data module asks for', async () => {
      const db = getDb();
      const instruments = new InstrumentRepository(db);
      const created = await db.tx(async (sql) => {
        await instruments.lockRound(EXPIRY, sql);
        expect(await instruments.insertExpiration('RPO', EXPIRY, '2096-10-01', sql)).toBe(true);
        expect(await instruments.insertExpiration('RPO', EXPIRY, '2096-10-01', sql)).toBe(false);
        return instruments.insertMissing('RPO', EXPIRY, await instruments.roundPaused(EXPIRY, sql), listing, sql);
      });
      expect(created).toBe(3);
      expect(await db.tx((tx) => instruments.insertMissing('RPO', EXPIRY, false, listing, tx))).toBe(0);
      expect(await instruments.expirationOn('RPO', '2096-10-01')).toEqual({ expiry: EXPIRY, settled: false });
      expect(await instruments.expirationOn('RPO', '2096-10-02')).toBeNull();

      expect(await db.tx((tx) => instruments.setPaused({ expiry: EXPIRY, asset: null }, true, tx))).toBe(3);
      expect(await instruments.roundPaused(EXPIRY)).toBe(true);
      const round = await instruments.held({ expiry: EXPIRY, asset: 'RPO' }, 0);
      expect(round.map((i) => [i.symbol, i.strike, i.kind, i.paused, i.settled, i.settlementPrice])).toEqual(
        expect.arrayContaining(listing.map((l) => [l.symbol, l.strike, l.kind, true, false, null])),
      );
      expect(round).toHaveLength(3);
      expect((await instruments.held(null, 0)).filter((i) => i.asset === 'RPO')).toHaveLength(3);
      expect(await instruments.held({ expiry: EXPIRY, asset: 'XYZ' }, 0)).toEqual([]);

      expect(await instruments.assetListed('RPO')).toBe(true);
      expect(await instruments.assetListed('XYZ')).toBe(false);
      expect(await instruments.assetsOf([listing[0].symbol, 'NOPE'])).toEqual(new Map([[listing[0].symbol, 'RPO']]));
      await db.exec(`UPDATE instruments SET settled = true WHERE symbol = $1`, [listing[2].symbol]);
      expect((await instruments.symbols('RPO', null)).sort()).toEqual([listing[0].symbol, listing[1].symbol].sort());
      expect(await instruments.symbols('RPO', 0)).toHaveLength(3);
      expect(await instruments.symbols(null, 0)).toEqual(expect.arrayContaining(listing.map((l) => l.symbol)));
    });

    it('the settlement port: locks the round and its terms, reports settled symbols, marks the round settled once due', async () => {
      const db = getDb();
      const instruments = new InstrumentRepository(db);
      const SETTLE = 4_000_086_400; // the next day: its own round
      const terms = [instrument(100_000_000n, 'call'), instrument(90_000_000n, 'put')].map((i) => ({ ...i, symbol: i.symbol.replace('1OCT96', '2OCT96') }));
      await db.tx(async (sql) => {
        await instruments.insertExpiration('RPO', SETTLE, '2096-10-02', sql);
        await instruments.insertMissing('RPO', SETTLE, false, terms, sql);
      });
      expect(await instruments.dueRounds(SETTLE - 1, 10)).not.toContainEqual({ asset: 'RPO', expiry: SETTLE });
      expect(await instruments.dueRounds(SETTLE, 10)).toContainEqual({ asset: 'RPO', expiry: SETTLE });

      const settledAt = await db.tx(async (sql) => {
        await instruments.lockRound(SETTLE, sql);
        expect(await instruments.lockExpiration('RPO', SETTLE, sql)).toEqual({ settled: false, settlementPrice: null, settledAt: null });
        expect(await instruments.lockTerms('RPO', SETTLE, sql)).toEqual(
          [...terms].sort((a, b) => (a.symbol < b.symbol ? -1 : 1)).map(({ symbol, kind, strike }) => ({ symbol, kind, strike })),
        );
        expect(
          await instruments.settledAmong(
            terms.map((t) => t.symbol),
            sql,
          ),
        ).toEqual([]);
        return instruments.markSettled('RPO', SETTLE, 123_000_000n, sql);
      });
      expect(settledAt).toBeInstanceOf(Date);
      await db.tx(async (sql) => {
        expect(await instruments.lockExpiration('RPO', SETTLE, sql)).toEqual({ settled: true, settlementPrice: 123_000_000n, settledAt });
        expect((await instruments.settledAmong([...terms.map((t) => t.symbol), listing[0].symbol], sql)).sort()).toEqual(terms.map((t) => t.symbol).sort());
        expect(await instruments.lockExpiration('RPO', 1, sql)).toBeNull();
        await expect(instruments.markSettled('RPO', 1, 1n, sql)).rejects.toThrow('no expiration 1 of RPO');
      });
      expect(await instruments.dueRounds(SETTLE, 10)).not.toContainEqual({ asset: 'RPO', expiry: SETTLE });
      const settledRound = await instruments.held({ expiry: SETTLE, asset: 'RPO' }, 0);
      expect(settledRound.every((i) => i.settled && i.settlementPrice === 123_000_000n && i.settledAt === Math.floor(settledAt.getTime() / 1000))).toBe(true);
      expect(settledRound).toHaveLength(2);
      // Past the 7-day line (docs/spec/design.md section 17): no longer held, listed from the database.
      const after = Math.floor(settledAt.getTime() / 1000) + 1;
      expect(await instruments.held({ expiry: SETTLE, asset: 'RPO' }, after)).toEqual([]);
      expect((await instruments.held(null, after)).filter((i) => i.expiry === SETTLE)).toEqual([]);
      expect((await instruments.symbols('RPO', after)).filter((s) => s.includes('2OCT96'))).toEqual([]);
      const older = await instruments.settledBefore({ asset: 'RPO' }, after, 10);
      expect(older.map((i) => i.symbol)).toEqual(['RPO-2OCT96-90-P', 'RPO-2OCT96-100-C']);
      expect(await instruments.settledBefore({ expiry: SETTLE }, after, 10)).toHaveLength(2);
      expect(await instruments.settledBefore({ asset: 'RPO' }, after - 2, 10)).toEqual([]);
      expect((await instruments.stored(['RPO-2OCT96-90-P', 'NOPE'])).map((i) => i.symbol)).toEqual(['RPO-2OCT96-90-P']);
    });

    it('keeps the later of two market-data writes, whatever their order of arrival', async () => {
      const market = new MarketDataRepository(getDb());
      const t1 = new Date('2026-01-01T00:00:01.000Z');
      const t2 = new Date('2026-01-01T00:00:02.000Z');
      await getDb().tx((tx) => market.upsertIndex('RPO', 150_000_000n, t2, tx));
      await getDb().tx((tx) => market.upsertIndex('RPO', 140_000_000n, t1, tx)); // received earlier: ignored
      expect(await market.indexes('RPO')).toEqual(new Map([['RPO', { value: 150_000_000n, updatedAt: 1767225602 }]]));
      expect(await market.indexOf('RPO')).toEqual({ price: 150_000_000n, updatedAt: t2 });
      expect(await market.indexOf('NONE')).toBeNull();

      const [a, b] = [listing[0].symbol, listing[1].symbol];
      expect(
        (
          await getDb().tx((tx) =>
            market.upsertIvs(
              new Map([
                [a, 800_000n],
                [b, 900_000n],
              ]),
              t2,
              tx,
            ),
          )
        ).sort(),
      ).toEqual([a, b].sort());
      expect(await getDb().tx((tx) => market.upsertIvs(new Map([[a, 100_000n]]), t1, tx))).toEqual([]);
      expect(await getDb().tx((tx) => market.upsertIvs(new Map(), t2, tx))).toEqual([]);
      expect(await market.ivs([a])).toEqual(new Map([[a, { value: 800_000n, updatedAt: 1767225602 }]]));
      expect((await market.ivs(null)).get(b)).toEqual({ value: 900_000n, updatedAt: 1767225602 });

      const ages = await market.indexAges();
      expect(ages.find((r) => r.asset === 'RPO')).toEqual({
        asset: 'RPO',
        index_price: '150.00000000',
        updated_at: '2026-01-01T00:00:02.000Z',
        epoch: 1767225602,
      });
    });
  });

  describe('the console’s read repositories', () => {
    it('answer an empty exchange: no RFQ, no event, no fill', async () => {
      const rfqs = new RfqReadsRepository(getDb());
      expect(await rfqs.countByState(['pending', 'quoted'], ['filled'], '0'.repeat(32))).toEqual([]);
      expect(await rfqs.list({ limit: 10 })).toEqual([]);
      expect(await rfqs.list({ state: 'filled', accountId: 1, before: 'f'.repeat(32), limit: 10 })).toEqual([]);
      expect(await rfqs.events('0'.repeat(32))).toBeNull();
      expect(await new FillReadsRepository(getDb()).perMinute(0)).toEqual(new Map());
    });
  });
});
