import type { RpcDeclaration } from '../gateway/rpc-method';
import { ref } from '../gateway/schema/json-schema';
import { integer, object, required, string } from '../gateway/schema/schema';
import { ACCEPT_SIDES } from './domain/accept-params';

/**
 * rfq.accept (docs/spec/interface.md 4.2), with the mapping of docs/spec/design.md section 4: anything off the schema
 * (missing, extra, wrong type, bad pattern) is RFQ_VALUE_OUT_OF_RANGE naming the field. Every
 * field is checked for presence first, then in the order of the interface's table. Whether
 * `taker_signature` is canonical base64 of 64 bytes is the signature check's business
 * (RFQ_INVALID_SIGNATURE), so any string passes here.
 */
export const ACCEPT_METHOD = {
  summary: "Accept one side of the quote with the taker's Ed25519 signature",
  description: 'Signature over the 105-byte StrategyAcceptPayload. The fill runs after the reply; its outcome arrives on the `rfq` channel.',
  params: object(
    {
      quote_id: required(string({ ref: 'QuoteId', pattern: /^[0-9a-f]{64}$/, invalid: '{path} must be 64 lowercase hex characters' })),
      side: required(string({ ref: 'Side', enum: ACCEPT_SIDES, invalid: '{path} must be "buy" or "sell"' })),
      // int64 unix seconds; a JSON number beyond 2^53 cannot be held exactly, so it is refused too.
      expires_at: required(
        integer({ ref: 'UnixSeconds', invalid: '{path} must be an integer of unix seconds', description: "At or before the quote's expires_at" }),
      ),
      taker_signature: required(string({ ref: 'Ed25519Base64', invalid: '{path} must be a string' })),
    },
    { requiredFirst: true },
  ),
  result: {
    type: 'object',
    properties: { rfq_id: ref('RfqId'), quote_id: ref('QuoteId'), side: ref('Side'), state: { const: 'accepted' } },
    required: ['rfq_id', 'quote_id', 'side', 'state'],
    additionalProperties: false,
  },
  errors: [
    'RFQ_NOT_FOUND',
    'RFQ_STATE_CONFLICT',
    'RFQ_QUOTE_EXPIRED',
    'RFQ_INVALID_SIGNATURE',
    'RFQ_INVALID_INSTRUMENT',
    'RFQ_TAKER_UNFUNDED',
    'RFQ_BALANCE_INSUFFICIENT',
  ],
} satisfies RpcDeclaration<unknown>;
