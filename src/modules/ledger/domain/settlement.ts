/**
 * Settlement of an expiration round (docs/spec/design.md section 7) as a pure function. Per instrument,
 * with I = intrinsic value at the settlement price:
 *
 * - every short position pays floor(|q| * I) (micro-contracts × micro-USDC / 10^6, floored);
 * - the longs of the instrument share exactly what the shorts paid, pro rata to their quantity:
 *   each long gets floor(pool * q / Q_long), and the few micro-units the floors leave over go one
 *   each to the largest remainders (ties: lower account id first).
 *
 * So the longs receive exactly what the shorts pay: settlement never makes or loses money. With
 * one long and one short of the same size (every single fill), the long receives exactly
 * floor(|q| * I), the short's payment.
 */
import { MICRO, floorDiv } from '@legwork/protocol';
import type { OptionKind } from '../../instruments/domain/symbol';
import { intrinsic } from '../../market-data/domain/black76';

export interface SettlingPosition {
  accountId: number;
  instrument: string;
  kind: OptionKind;
  /** micro-units */
  strike: bigint;
  /** signed micro-contracts, long positive */
  quantity: bigint;
}

export interface SettlementPayment {
  accountId: number;
  instrument: string;
  quantity: bigint;
  /** signed micro-USDC added to the account's total: negative for a short, positive for a long */
  amount: bigint;
}

export function settlementPayments(positions: readonly SettlingPosition[], price: bigint): SettlementPayment[] {
  if (price < 0n) throw new RangeError('a settlement price is never negative');
  const byInstrument = new Map<string, SettlingPosition[]>();
  for (const p of positions) {
    if (p.quantity === 0n) continue;
    const list = byInstrument.get(p.instrument);
    if (list) list.push(p);
    else byInstrument.set(p.instrument, [p]);
  }
  const out: SettlementPayment[] = [];
  for (const [instrument, list] of byInstrument) {
    const value = intrinsic(list[0].kind, price, list[0].strike);
    const shorts = list.filter((p) => p.quantity < 0n);
    const longs = list.filter((p) => p.quantity > 0n).sort((a, b) => a.accountId - b.accountId);
    const longQuantity = longs.reduce((s, p) => s + p.quantity, 0n);
    const shortQuantity = shorts.reduce((s, p) => s - p.quantity, 0n);
    if (longQuantity !== shortQuantity) throw new Error(`positions in ${instrument} do not net to zero (${longQuantity} long, ${shortQuantity} short)`);
    let pool = 0n;
    for (const s of shorts) {
      const pays = floorDiv(-s.quantity * value, MICRO);
      pool += pays;
      out.push({ accountId: s.accountId, instrument, quantity: s.quantity, amount: -pays });
    }
    for (const share of splitPool(pool, longs))
      out.push({ accountId: share.position.accountId, instrument, quantity: share.position.quantity, amount: share.amount });
  }
  return out;
}

/** pool split pro rata to quantity; largest remainders take the leftover micro-units (ties: input order). */
function splitPool(pool: bigint, longs: readonly SettlingPosition[]): Array<{ position: SettlingPosition; amount: bigint }> {
  if (longs.length === 0) return [];
  const total = longs.reduce((s, p) => s + p.quantity, 0n);
  const shares = longs.map((position, i) => {
    const exact = pool * position.quantity;
    return { position, i, amount: exact / total, remainder: exact % total };
  });
  let left = pool - shares.reduce((s, x) => s + x.amount, 0n);
  const order = [...shares].sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const share of order) {
    if (left === 0n) break;
    share.amount += 1n;
    left -= 1n;
  }
  return shares.map(({ position, amount }) => ({ position, amount }));
}
