/** How the reference maker's log lines show a quote's side and a fill. */
import { type ExchangeKeyInfo, type FillView, type MakerQuoteEvent, type Side, formatRfq, verifyReceipt } from '@legwork/sdk';
import { reason } from '../common';
import type { QuoteRecord } from './market-maker';

export function sidePrice(quote: QuoteRecord | undefined, side: Side | null): string {
  if (!quote || !side) return '?';
  return side === 'buy' ? `our ask ${formatRfq(quote.ask)}` : `our bid ${formatRfq(quote.bid)}`;
}

export function fillText(fill: FillView | null): string {
  if (!fill) return '?';
  return `${fill.price} (fill ${fill.fill_id}, taker fee ${fill.fee})`;
}

/** The fill's receipt checked against the fill as heard and the exchange's key. */
export function receiptText(e: MakerQuoteEvent, keys: ExchangeKeyInfo[]): string {
  const receipt = e.fill?.receipt;
  if (!e.fill || !receipt) return 'no receipt';
  try {
    verifyReceipt(receipt, { keys, fill: { ...e.fill, rfq_id: e.rfq_id, quote_id: e.quote_id } });
    return `receipt #${receipt.journal_seq} verified`;
  } catch (error) {
    return `receipt NOT VERIFIED: ${reason(error)}`;
  }
}
