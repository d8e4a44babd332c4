import { AccountEntity } from '../../src/modules/accounts/entities/account.entity';
import { ExpirationEntity } from '../../src/modules/instruments/entities/expiration.entity';
import { InstrumentEntity } from '../../src/modules/instruments/entities/instrument.entity';
import { BalanceEntity } from '../../src/modules/ledger/entities/balance.entity';
import { PositionEntity } from '../../src/modules/ledger/entities/position.entity';
import { MakerNonceEntity } from '../../src/modules/rfq/entities/maker-nonce.entity';
import { RfqEntity } from '../../src/modules/rfq/entities/rfq.entity';
import { describeBothDatabases } from './support/both-databases';

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);

/** The entity API reads and writes what the SQL does: bigint and whole numeric as JS bigint (no digit lost), jsonb as objects, defaults and the generated column. */
describeBothDatabases('entities: integer columns round-trip through the entity API', (getDb) => {
  it('bigint columns at the ends of their range, whole numerics beyond it, defaults', async () => {
    const manager = getDb().manager;
    const account = await manager.save(manager.create(AccountEntity, { wallet: 'entities-wallet-1', roles: ['taker', 'maker'] }));
    expect(typeof account.id).toBe('bigint');
    await manager.insert(BalanceEntity, { accountId: account.id, total: (1n << 63n) - 1n, locked: 0n });
    await manager.insert(MakerNonceEntity, { accountId: account.id, highWater: U64_MAX });

    const read = await manager.findOneByOrFail(AccountEntity, { id: account.id });
    expect(read).toMatchObject({ wallet: 'entities-wallet-1', roles: ['taker', 'maker'], openRfqs: 0, sessionsRevokedAt: null });
    expect(read.createdAt).toBeInstanceOf(Date);
    expect(await manager.findOneByOrFail(BalanceEntity, { accountId: account.id })).toMatchObject({ total: 9223372036854775807n, locked: 0n });
    expect((await manager.findOneByOrFail(MakerNonceEntity, { accountId: account.id })).highWater).toBe(U64_MAX);
    // The SQL side sees the same numbers.
    expect(
      await getDb().one<{ total: string; high_water: string }>(
        'SELECT b.total::text, n.high_water::text FROM balances b JOIN maker_nonces n USING (account_id) WHERE account_id = $1',
        [account.id.toString()],
      ),
    ).toEqual({ total: '9223372036854775807', high_water: '18446744073709551615' });
  });
});

describeBothDatabases('entities: jsonb, char ids, generated and fractional columns round-trip through the entity API', (getDb) => {
  it('jsonb legs, char ids, the generated expiry deadline and numeric fractions', async () => {
    const manager = getDb().manager;
    const taker = await manager.save(manager.create(AccountEntity, { wallet: 'entities-wallet-2', roles: ['taker'] }));
    await manager.insert(ExpirationEntity, { asset: 'ENT', expiry: 1_900_000_000n, utcDate: '2030-03-17' });
    await manager.insert(InstrumentEntity, { symbol: 'ENT-17MAR30-100-C', asset: 'ENT', strike: 100_000_000n, kind: 'call', expiry: 1_900_000_000n });
    const id = '0'.repeat(31) + '1';
    await manager.insert(RfqEntity, {
      id,
      accountId: taker.id,
      clientRef: 'r1',
      legs: [{ instrument: 'ENT-17MAR30-100-C', quantity: '-1.5' }],
      asset: 'ENT',
      expiry: 1_900_000_000n,
      state: 'pending',
      createdAt: 100n,
      updatedAt: 100n,
      expiresAt: 220n,
      maxQuoteExpiresAt: 400n,
    });
    const rfq = await manager.findOneByOrFail(RfqEntity, { id });
    expect(rfq).toMatchObject({ legs: [{ instrument: 'ENT-17MAR30-100-C', quantity: '-1.5' }], expiryDeadline: 220n, quoteNonce: null, fillReverted: false });
    expect((await manager.findOneByOrFail(ExpirationEntity, { asset: 'ENT', expiry: 1_900_000_000n })).utcDate).toBe('2030-03-17');

    await manager.insert(PositionEntity, {
      accountId: taker.id,
      instrument: 'ENT-17MAR30-100-C',
      quantity: I64_MIN,
      avgNum: -(10n ** 30n),
      avgDen: 3n,
      averagePrice: -333n,
    });
    expect(await manager.findOneByOrFail(PositionEntity, { accountId: taker.id, instrument: 'ENT-17MAR30-100-C' })).toMatchObject({
      quantity: I64_MIN,
      avgNum: -(10n ** 30n),
      avgDen: 3n,
      averagePrice: -333n,
      settled: false,
      settlementAmount: null,
    });
  });
});
