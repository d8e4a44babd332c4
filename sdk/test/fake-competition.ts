// The fake server's competition methods (docs/spec/design.md 18): a competitive RFQ with three
// live quotes, the maker's profile, the directory and the transcript of the vectors.
import { loadVector } from './vectors';

const MAKERS = ['3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx', 'AqVptoBYaJFhzAm3W1NdAg8pEeacvLszUBAiuztzDsKS', 'E2EenwmroHycAcFBxKnkcofTVPq3a6hDAoBH8jBe6MRy'];
const now = Math.floor(Date.now() / 1000);

/** A live quote of maker `n` (ids start with 0b: the fake server accepts those). */
const live = (n: number, bid: string, ask: string) => ({
  quote_id: `0b${String(n).repeat(62)}`,
  maker: MAKERS[n - 1],
  quote_nonce: String(100 + n),
  bid,
  ask,
  issued_at: now,
  expires_at: now + 60,
  maker_signature: 'c2ln',
  received_at_ms: now * 1000 + n,
});

/** Three live quotes: the best bid is maker 2's, the best ask maker 3's (not the same quote, so a swapped side shows). */
export const COMPETITIVE_QUOTES = [live(1, '40.1', '41.2'), live(2, '40.25', '41.05'), live(3, '40.2', '40.95')];

const view = (rfqId: string, extra: Record<string, unknown>) => ({
  rfq_id: rfqId,
  client_ref: '6b2f1c1e-8f9a-4c43-9d67-0a4c3bd2f6a1',
  legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: '10' }],
  created_at: now,
  updated_at: now,
  expires_at: now + 120,
  max_quote_expires_at: now + 3600,
  quote: null,
  accepted_side: null,
  decline_reason: null,
  failure: null,
  fill: null,
  cancelled_at: null,
  ...extra,
});

export const COMPETITIVE_RFQ = view('01935f3a8b2c7d4e8f00112233445566', {
  state: 'quoted',
  competition: { makers: null },
  quotes: COMPETITIVE_QUOTES,
  best: { bid: COMPETITIVE_QUOTES[1].quote_id, ask: COMPETITIVE_QUOTES[2].quote_id },
});

/** A competitive RFQ whose only live quote ended: nothing is best. */
export const UNQUOTED_RFQ = view('01935f3a8b2c7d4e8f00112233445577', {
  state: 'pending',
  competition: { makers: null },
  quotes: [],
  best: { bid: null, ask: null },
});

/** A seed RFQ (one quote, first wins): no quotes, no best. */
export const SEED_RFQ = view('01935f3a8b2c7d4e8f00112233445588', { state: 'pending', competition: null, quotes: null, best: null });

export const STATS = { rfqs: 12, quoted: 10, median_response_ms: 140, cancelled: 1, replaced: 3, won: 4 };
export const DIRECTORY = [
  { wallet: MAKERS[0], name: 'Aster', stats: STATS },
  { wallet: MAKERS[1], name: null, stats: { ...STATS, median_response_ms: null } },
];

/** The signed transcript of the vectors' first case, as rfq.transcript answers it. */
export const TRANSCRIPT_VECTORS = loadVector('transcripts.json');
export const SIGNED_TRANSCRIPT = (({ transcript, payload_base64, hash, key_id, signature }: any) => ({
  transcript,
  payload: payload_base64,
  hash,
  key_id,
  signature,
}))(TRANSCRIPT_VECTORS.cases[0]);

let profile = { listed: false, name: null as string | null, cancel_on_disconnect: false };

/** An rfq.* failure as the gateway sends it. */
const fail = (id: unknown, error: string, message: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code: 1200, message, data: { error, message, operation_id: 'op-c', retryable: false } },
});

/** The answer of a competition method; undefined for any other. */
export function competition(id: unknown, method: string, params: any): unknown {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id, result });
  switch (method) {
    case 'rfq.maker.cancel_quote':
      if (!params.quote_id.startsWith('0b')) return fail(id, 'RFQ_NOT_FOUND', `no quote ${params.quote_id}`);
      return ok({ quote_id: params.quote_id, state: 'cancelled' });
    case 'rfq.maker.cancel_quotes':
      return ok({ cancelled: [COMPETITIVE_QUOTES[0].quote_id, COMPETITIVE_QUOTES[2].quote_id] });
    case 'rfq.maker.set_profile':
      profile = { ...profile, ...params };
      return ok(profile);
    case 'rfq.maker.stats':
      return ok(STATS);
    case 'rfq.makers':
      return ok({ makers: DIRECTORY });
    case 'rfq.transcript':
      if (params.rfq_id !== SIGNED_TRANSCRIPT.transcript.rfq_id) return fail(id, 'RFQ_NOT_FOUND', `no transcript of ${params.rfq_id}`);
      return ok(SIGNED_TRANSCRIPT);
  }
  return undefined;
}
