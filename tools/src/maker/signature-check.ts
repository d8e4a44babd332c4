/**
 * What the reference maker says when the exchange refuses its quote's signature: the same params
 * go to `rfq.maker.check`, which answers with the payload the exchange built, and the fields where
 * it differs from the maker's own bytes are named (a wrong service name, instrument terms or
 * decimals show here).
 */
import { type LegworkClient, RfqError, type buildQuote } from '@legwork/sdk';
import { reason, short } from '../common';
import { payloadDiff } from './payload-diff';

/** A respond refused for its signature, and where the exchange's payload differs from ours (`rfq.maker.check`). */
export interface SignatureMismatch {
  rfqId: string;
  ourQuoteId: string;
  /** The exchange's quote id, when its check gave one. */
  exchangeQuoteId: string | null;
  /** The payload fields whose bytes differ (empty: same bytes, so the key or the signature itself is at fault). */
  fields: string[];
}

/** The line to log, and the mismatch when the exchange gave its payload. Never throws: the refusal is logged anyway. */
export async function checkRefusedSignature(
  client: LegworkClient,
  rfqId: string,
  built: ReturnType<typeof buildQuote>,
): Promise<{ line: string; mismatch?: SignatureMismatch }> {
  const ours = built.quoteId;
  try {
    const checked = await client.checkQuote(built.params);
    return { line: `check    rfq ${short(rfqId)}: the exchange now accepts these params (quote ${short(checked.quote_id)}); the refusal did not repeat` };
  } catch (error) {
    if (!(error instanceof RfqError)) return { line: `check    rfq ${short(rfqId)} failed: ${reason(error)}` };
    if (error.error !== 'RFQ_INVALID_SIGNATURE' || !error.payload) return { line: `check    rfq ${short(rfqId)}: ${error.error} (${error.message})` };
    const fields = payloadDiff(built.payload, Buffer.from(error.payload, 'base64'));
    const mismatch: SignatureMismatch = { rfqId, ourQuoteId: ours, exchangeQuoteId: error.quoteId ?? null, fields };
    const line =
      `SIGNATURE refused on rfq ${short(rfqId)}: our quote_id ${ours}, the exchange's ${mismatch.exchangeQuoteId ?? '?'}; ` +
      (fields.length ? `payload differs in ${fields.join(', ')}` : 'same payload bytes: the key or the signature encoding is at fault');
    return { line, mismatch };
  }
}
