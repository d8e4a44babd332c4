import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The average price of a position is stored with it (docs/ledger.md, Positions): its exact value
 * as a fraction (`avg_num / avg_den`, lowest terms, positive denominator; null when flat) that each
 * fill updates, and `average_price`, that fraction rounded half away from zero to a micro-unit,
 * which GET /query/rfq-positions reads as it is (it used to replay every fill of the account).
 * Existing rows are filled in by replaying their fills (not reverted) in fill order.
 *
 * Frozen: the replay below is this migration's own copy of the average-price rules as they were
 * when it was written (src/modules/ledger/domain/average-price.ts, `addTrade`, and fold.ts,
 * `orientation`), so a later change of that code cannot change what this migration did.
 */
export class PositionAverage1763800000003 implements MigrationInterface {
  name = 'PositionAverage1763800000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE positions ADD COLUMN avg_num numeric, ADD COLUMN avg_den numeric, ADD COLUMN average_price bigint`);
    await q.query(
      `ALTER TABLE positions ADD CONSTRAINT positions_average CHECK ((avg_num IS NULL) = (avg_den IS NULL) AND (avg_den IS NULL OR avg_den > 0) AND (average_price IS NULL) = (avg_num IS NULL))`,
    );

    const trades = (await q.query(`
      SELECT t.account_id, l.instrument, t.role, f.side, l.quantity, l.premium
        FROM fills f
        JOIN fill_legs l ON l.fill_id = f.id
        CROSS JOIN LATERAL (VALUES (f.taker_account_id, 'taker'), (f.maker_account_id, 'maker')) AS t(account_id, role)
       WHERE NOT f.reverted
       ORDER BY t.account_id, l.instrument, f.id`)) as Array<{
      account_id: string;
      instrument: string;
      role: 'taker' | 'maker';
      side: 'buy' | 'sell';
      quantity: string;
      premium: string;
    }>;
    const folded = new Map<string, { accountId: string; instrument: string; position: PositionCost }>();
    for (const t of trades) {
      const key = `${t.account_id} ${t.instrument}`;
      const entry = folded.get(key) ?? { accountId: String(t.account_id), instrument: t.instrument, position: FLAT };
      const sign = orientation(t.role, t.side);
      entry.position = addTrade(entry.position, { quantity: sign * BigInt(t.quantity), paid: sign * BigInt(t.premium) });
      folded.set(key, entry);
    }
    const rows = [...folded.values()].filter((e) => e.position.average !== null && e.position.quantity !== 0n);
    for (let i = 0; i < rows.length; i += 1000) {
      const batch = rows.slice(i, i + 1000);
      await q.query(
        `UPDATE positions p SET avg_num = v.n, avg_den = v.d, average_price = v.price
           FROM unnest($1::bigint[], $2::text[], $3::numeric[], $4::numeric[], $5::bigint[]) AS v(account_id, instrument, n, d, price)
          WHERE p.account_id = v.account_id AND p.instrument = v.instrument`,
        [
          batch.map((e) => e.accountId),
          batch.map((e) => e.instrument),
          batch.map((e) => e.position.average!.n.toString()),
          batch.map((e) => e.position.average!.d.toString()),
          batch.map((e) => roundedAverage(e.position)!.toString()),
        ],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE positions DROP CONSTRAINT IF EXISTS positions_average, DROP COLUMN IF EXISTS avg_num, DROP COLUMN IF EXISTS avg_den, DROP COLUMN IF EXISTS average_price`,
    );
  }
}

/** An exact rational, denominator positive, in lowest terms. */
interface Ratio {
  n: bigint;
  d: bigint;
}

/** A position and its exact average cost (micro-USDC per contract); average null when flat. */
interface PositionCost {
  quantity: bigint;
  average: Ratio | null;
}

const MICRO = 1_000_000n;
const FLAT: PositionCost = { quantity: 0n, average: null };
const abs = (x: bigint) => (x < 0n ? -x : x);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

function ratio(n: bigint, d: bigint): Ratio {
  if (d === 0n) throw new RangeError('zero denominator');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

/** +1 when the role bought the package (taker buying, maker selling), else -1. */
function orientation(role: 'taker' | 'maker', side: 'buy' | 'sell'): 1n | -1n {
  return (role === 'taker') === (side === 'buy') ? 1n : -1n;
}

/** In the position's direction it averages in; against it, smaller, it reduces at the average; else it closes or flips at the trade's price. */
function addTrade(position: PositionCost, t: { quantity: bigint; paid: bigint }): PositionCost {
  if (t.quantity === 0n) return position;
  const q = position.quantity;
  const quantity = q + t.quantity;
  const price = ratio(t.paid * MICRO, t.quantity);
  const avg = position.average;
  if (q === 0n || q > 0n === t.quantity > 0n) {
    const held = abs(q);
    const added = abs(t.quantity);
    return {
      quantity,
      average: avg === null || held === 0n ? price : ratio(avg.n * held * price.d + price.n * added * avg.d, avg.d * price.d * (held + added)),
    };
  }
  if (abs(t.quantity) < abs(q)) return { quantity, average: avg };
  return { quantity, average: quantity === 0n ? null : price };
}

/** The average rounded half away from zero to a micro-unit; null when flat. */
function roundedAverage(position: PositionCost): bigint | null {
  const r = position.average;
  if (position.quantity === 0n || r === null) return null;
  const q = abs(r.n) / r.d;
  const rem = abs(r.n) % r.d;
  const rounded = rem * 2n >= r.d ? q + 1n : q;
  return r.n < 0n ? -rounded : rounded;
}
