/**
 * The `params.data` of a stored taker event, rendered by PostgreSQL as JSON text while a replay
 * reads it (docs/events.md, "Who renders a replayed event"): the text that
 * `JSON.stringify(accountEventData('rfq', record, seq))` makes of the snapshot (rfq-view.ts),
 * member for member and in the same order. A replay then sends each event as read, with no parse
 * of the snapshot, no record, no view and no stringify in Node: about half of the server's work
 * per replayed event (bench F9).
 *
 * Only the taker's events of a seed RFQ are rendered here (`RENDERED_IN_SQL`): a competitive RFQ's
 * live quotes and best, and the maker's `rfq_maker` events, go through rfq-view.ts as before. The
 * two renderings are held equal by test/e2e/replay-render.e2e-spec.ts: every taker event of a seed
 * RFQ (quotes, fills with receipts and salts, a revert, a failure, a cancel, expiries) replayed is
 * the live frame byte for byte, and `formatRfqSql` is `formatRfq` over the RFQ range.
 *
 * The snapshot `e.rfq` holds every number as text (rfq.repository.ts SNAPSHOT); `x` is the event's
 * receipt (its payload in base64 on one line) and the taker's salt (hex), on `filled` events only.
 */

/** The stored events this file renders: the taker's, of an RFQ without a competition. */
export const RENDERED_IN_SQL = `e.channel = 'rfq' AND e.event <> 'quotes' AND e.rfq->>'competition' IS NULL`;

/** A string member's value, or null (`to_json` escapes as JSON.stringify does: quote, backslash, control characters). */
const str = (value: string) => `coalesce(to_json(${value})::text, 'null')`;

/** A number kept as text in the snapshot, written as a JSON number (or null). */
const num = (key: string) => `coalesce(e.rfq->>'${key}', 'null')`;

/**
 * formatRfq (packages/protocol decimal.ts) of a numeric of micro-units: the sign, the whole part,
 * and the fraction without its trailing zeros (none when it is zero).
 */
export function formatRfqSql(micro: string): string {
  return `(CASE WHEN ${micro} < 0 THEN '-' ELSE '' END || div(abs(${micro}), 1000000)::text
           || CASE WHEN mod(abs(${micro}), 1000000) = 0 THEN '' ELSE '.' || rtrim(lpad(mod(abs(${micro}), 1000000)::text, 6, '0'), '0') END)`;
}

/** A micro-units member of the snapshot as an RFQ decimal string (or null). */
const decimal = (key: string) => `CASE WHEN e.rfq->>'${key}' IS NULL THEN 'null' ELSE '"' || ${formatRfqSql(`(e.rfq->>'${key}')::numeric`)} || '"' END`;

/**
 * A leg's quantity is stored as a decimal string: the view parses and formats it again
 * (formatRfq(parseRfqSigned(q))), which for a stored quantity (at most 6 decimals) is its numeric
 * value without trailing zeros.
 */
const LEGS = `(SELECT '[' || string_agg('{"instrument":' || ${str(`l->>'instrument'`)} || ',"quantity":"' || trim_scale((l->>'quantity')::numeric)::text || '"}', ',' ORDER BY n) || ']'
                FROM jsonb_array_elements(e.rfq->'legs') WITH ORDINALITY AS legs(l, n))`;

const QUOTE = `CASE WHEN e.rfq->>'quote_id' IS NULL THEN 'null' ELSE
  '{"quote_id":' || ${str(`e.rfq->>'quote_id'`)} || ',"maker":' || ${str(`e.rfq->>'maker_wallet'`)}
  || ',"quote_nonce":' || ${str(`e.rfq->>'quote_nonce'`)} || ',"bid":' || ${decimal('bid')} || ',"ask":' || ${decimal('ask')}
  || ',"issued_at":' || ${num('issued_at')} || ',"expires_at":' || ${num('quote_expires_at')}
  || ',"maker_signature":' || ${str(`e.rfq->>'maker_signature'`)} || '}' END`;

const FAILURE = `CASE WHEN e.rfq->>'failure_error' IS NULL THEN 'null' ELSE
  '{"error":' || ${str(`e.rfq->>'failure_error'`)} || ',"message":' || to_json(coalesce(e.rfq->>'failure_message', ''))::text || '}' END`;

/** The receipt on a `filled` event (base64 without PostgreSQL's line breaks), the taker's salt last. */
const RECEIPT = `CASE WHEN x.journal_seq IS NULL THEN '' ELSE
  ',"receipt":{"journal_seq":' || x.journal_seq || ',"kind":' || x.kind || ',"payload":' || to_json(x.payload)::text
  || ',"hash":' || to_json(x.hash)::text || ',"key_id":' || to_json(x.key_id)::text || ',"signature":' || to_json(x.signature)::text
  || CASE WHEN x.taker_salt IS NULL THEN '' ELSE ',"taker_salt":' || to_json(x.taker_salt)::text END || '}' END`;

const FILL = `CASE WHEN e.rfq->>'fill_id' IS NULL OR e.rfq->>'accepted_side' IS NULL THEN 'null' ELSE
  '{"fill_id":' || ${str(`e.rfq->>'fill_id'`)} || ',"side":' || ${str(`e.rfq->>'accepted_side'`)}
  || ',"price":' || ${decimal('fill_price')} || ',"fee":' || ${decimal('fill_fee')} || ',"filled_at":' || ${num('filled_at')}
  || ',"reverted":' || ${num('fill_reverted')} || ${RECEIPT} || '}' END`;

/** `{ event, rfq: rfqView, account_seq }` of a stored taker event (`e`), as JSON text. */
export const TAKER_EVENT_DATA = `'{"event":' || ${str(`e.rfq->>'state'`)}
  || ',"rfq":{"rfq_id":' || ${str(`e.rfq->>'id'`)} || ',"client_ref":' || ${str(`e.rfq->>'client_ref'`)} || ',"state":' || ${str(`e.rfq->>'state'`)}
  || ',"legs":' || coalesce(${LEGS}, '[]')
  || ',"created_at":' || ${num('created_at')} || ',"updated_at":' || ${num('updated_at')} || ',"expires_at":' || ${num('expires_at')}
  || ',"max_quote_expires_at":' || ${num('max_quote_expires_at')}
  || ',"quote":' || ${QUOTE} || ',"accepted_side":' || ${str(`e.rfq->>'accepted_side'`)} || ',"decline_reason":' || ${str(`e.rfq->>'decline_reason'`)}
  || ',"failure":' || ${FAILURE} || ',"fill":' || ${FILL} || ',"cancelled_at":' || ${num('cancelled_at')}
  || ',"competition":null,"quotes":null,"best":null},"account_seq":' || e.account_seq || '}'`;
