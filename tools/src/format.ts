/** Readable text for RFQs, positions and balances (CLI and demo). */
import { type BalanceRow, type Instrument, type RfqFillRow, type RfqPositionRow, type RfqView, formatRfq, parseHttpDecimal } from '@legwork/sdk';
import { clock, describeLegs, utcDate } from './common';

/** An HTTP 8-dp amount in its shortest exact form ("12.50000000" → "12.5"); anything unreadable as given. */
function amount(text: string): string {
  try {
    return formatRfq(parseHttpDecimal(text));
  } catch {
    return text;
  }
}

/** What a side of a quote means in cash for the taker: "you pay 12.5" / "you receive 3". */
export function cashText(side: 'buy' | 'sell', quote: { bid: string; ask: string }): string {
  const price = side === 'buy' ? quote.ask : quote.bid;
  const negative = price.startsWith('-');
  const size = negative ? price.slice(1) : price;
  return (side === 'buy') !== negative ? `you pay ${size} USDC` : `you receive ${size} USDC`;
}

/** The lines describing an RFQ as its taker sees it. */
export function rfqLines(rfq: RfqView, verified?: boolean): string[] {
  const lines = [
    `rfq ${rfq.rfq_id}  ${rfq.state}  created ${clock(rfq.created_at)}, open until ${clock(rfq.expires_at)} UTC`,
    `  legs   ${describeLegs(rfq.legs)}`,
  ];
  const q = rfq.quote;
  if (q) {
    const check = verified === undefined ? '' : verified ? ', maker signature verified' : ', SIGNATURE DOES NOT VERIFY';
    lines.push(`  quote  ${q.quote_id}`);
    lines.push(`         bid ${q.bid} / ask ${q.ask}  firm until ${clock(q.expires_at)} UTC  (maker ${q.maker}, nonce ${q.quote_nonce}${check})`);
  }
  if (rfq.accepted_side) lines.push(`  accepted side: ${rfq.accepted_side}`);
  if (rfq.fill)
    lines.push(`  fill   #${rfq.fill.fill_id}: ${rfq.fill.side} at ${rfq.fill.price}, taker fee ${rfq.fill.fee}${rfq.fill.reverted ? ' (REVERTED)' : ''}`);
  if (rfq.decline_reason) lines.push(`  declined: ${rfq.decline_reason}`);
  if (rfq.cancelled_at !== null && rfq.cancelled_at !== undefined) lines.push(`  cancelled by you at ${clock(rfq.cancelled_at)} UTC`);
  if (rfq.failure) lines.push(`  failed: ${rfq.failure.error}: ${rfq.failure.message}`);
  return lines;
}

/** A fixed-width table. */
export function table(headers: string[], rows: string[][], right: number[] = []): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const cell = (text: string, i: number) => (right.includes(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  return [headers.map(cell).join('  ').trimEnd(), ...rows.map((r) => r.map(cell).join('  ').trimEnd())];
}

export function positionLines(rows: RfqPositionRow[]): string[] {
  if (rows.length === 0) return ['(no RFQ positions)'];
  return table(
    ['instrument', 'quantity', 'avg price', 'expiry', 'settled'],
    rows.map((r) => [r.instrument, amount(r.quantity), r.average_price === null ? '-' : amount(r.average_price), utcDate(r.expiry), r.settled ? 'yes' : 'no']),
    [1, 2],
  );
}

export function balanceLines(rows: BalanceRow[]): string[] {
  if (rows.length === 0) return ['(no balance: nothing deposited yet)'];
  return table(
    ['account', 'currency', 'available', 'locked', 'total'],
    rows.map((r) => [String(r.account_id), r.currency, amount(r.available), amount(r.locked), amount(r.total)]),
    [2, 3, 4],
  );
}

/** Fill rows, each with the CLI's verdict on its receipt when it checked them (`receipt_status`). */
export function fillLines(rows: Array<RfqFillRow & { receipt_status?: string }>): string[] {
  if (rows.length === 0) return ['(no fills)'];
  return table(
    ['fill', 'rfq', 'role', 'side', 'price', 'fee', 'legs', 'reverted', 'receipt', 'taker salt'],
    rows.map((r) => [
      String(r.fill_id),
      r.rfq_id,
      r.role,
      r.side,
      amount(String(r.price)),
      amount(String(r.fee)),
      describeLegs(r.legs.map((l) => ({ instrument: l.instrument, quantity: amount(l.quantity) }))),
      r.reverted ? 'yes' : '',
      r.receipt_status ?? '',
      // The taker's rows only: what proves, with the receipt, that the fill was this wallet's.
      r.receipt?.taker_salt ?? '',
    ]),
    [4, 5],
  );
}

export function instrumentLines(rows: Instrument[]): string[] {
  if (rows.length === 0) return ['(no open instruments)'];
  return table(
    ['symbol', 'expiry', 'mark', 'iv', 'state'],
    rows.map((i) => [i.symbol, utcDate(i.expiry), i.mark_price ?? '-', i.iv ?? '-', i.settled ? 'settled' : i.paused ? 'paused' : 'open']),
    [2, 3],
  );
}
