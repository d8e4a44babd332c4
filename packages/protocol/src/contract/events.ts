import { RFQ_STATES } from './enums';
import { ref } from './json-schema';
import type { WireType } from './views';

/**
 * The notifications the server sends (docs/spec/design.md section 5, Events): `{ jsonrpc, method:
 * "subscription", params: { channel, data } }`, `data` per event as below. /asyncapi.json wraps
 * each in its envelope; the clients' event types are read off them.
 */
const SEQ = { type: 'integer', minimum: 1, description: 'Increases by one per notification on each connection: a gap is a lost notification' } as const;
const ACCOUNT_SEQ = {
  type: 'integer',
  minimum: 1,
  description: 'Per account, +1 per event with no gap, kept 7 days: the `since` of rfq.subscribe / rfq.maker.subscribe after a reconnect (design.md 13)',
} as const;

/** An event's data; `account`: addressed to one account, numbered with account_seq (not the broadcasts created and closed). */
function eventData<const E extends object, const R extends Record<string, object>, const A extends boolean = false>(event: E, rest: R, account?: A) {
  return {
    type: 'object',
    properties: { seq: SEQ, ...(account ? { account_seq: ACCOUNT_SEQ } : {}), event, ...rest },
    required: ['seq', ...(account ? ['account_seq'] : []), 'event', ...Object.keys(rest)],
    additionalProperties: false,
  } as unknown as {
    type: 'object';
    properties: { seq: typeof SEQ; event: E } & (A extends true ? { account_seq: typeof ACCOUNT_SEQ } : unknown) & R;
    required: ReadonlyArray<'seq' | 'event' | (A extends true ? 'account_seq' : never) | (keyof R & string)>;
    additionalProperties: false;
  };
}

export const EVENTS = {
  session: {
    session_lapsed: {
      name: 'session lapsed',
      title: 'The sign-in ended',
      summary:
        "At the token's exp or at a revoke of the account's sessions (design.md section 10): the connection is as before sign-in, its subscriptions dropped",
      data: eventData({ type: 'string', enum: ['expired', 'revoked'] }, {}),
    },
  },
  rfq: {
    rfq_event: {
      name: 'rfq event',
      title: 'RFQ event (taker)',
      summary:
        'Every state move of one of the subscriber’s RFQs; `quotes` whenever the live quotes of a competitive RFQ change (added, replaced, cancelled, expired, a maker declined), its state showing the moves between pending and quoted',
      data: eventData(
        {
          type: 'string',
          enum: [...RFQ_STATES.filter((state): state is Exclude<(typeof RFQ_STATES)[number], 'pending'> => state !== 'pending'), 'quotes' as const],
        },
        { rfq: ref('RfqView') },
        true,
      ),
    },
  },
  rfq_maker: {
    rfq_maker_created: {
      name: 'rfq_maker created',
      title: 'New pending RFQ',
      summary: 'To every subscribed quoter but the taker; for a competitive RFQ with a panel, to the panel only',
      data: eventData({ const: 'created' }, { rfq: ref('OpenRfq') }),
    },
    rfq_maker_closed: {
      name: 'rfq_maker closed',
      title: 'RFQ left the open book',
      summary:
        'A seed RFQ left pending without the receiver’s quote (quoted by another maker, declined, expired); a competitive RFQ left the open book (accepted, declined, expired, cancelled, its round settled) while the receiver, on its panel, had no live quote',
      data: eventData({ const: 'closed' }, { rfq: ref('ClosedRfq') }),
    },
    rfq_maker_quote: {
      name: 'rfq_maker quote event',
      title: 'Event of the quote the receiver holds',
      summary: 'accepted, filled, failed or expired, to the maker holding the quote',
      data: eventData({ type: 'string', enum: ['accepted', 'filled', 'failed', 'expired'] }, { rfq: ref('MakerQuoteEvent') }, true),
    },
    rfq_maker_quote_ended: {
      name: 'rfq_maker quote ended',
      title: 'A competitive quote of the receiver ended without a fill',
      summary:
        'traded_away: the taker accepted another quote; expired: the quote reached its expires_at, the taker cancelled the RFQ, or its round settled (design.md 18). No price, no winner, no taker',
      data: eventData({ type: 'string', enum: ['traded_away', 'expired'] }, { rfq: ref('QuoteEndEvent') }, true),
    },
    rfq_maker_protection: {
      name: 'rfq_maker protection',
      title: 'Maker protection tripped',
      summary:
        'To the maker whose fills in its protection window exceeded a threshold (design.md section 15): new quotes are refused (RFQ_OPEN_LIMIT) until `until`, or until rfq.maker.reset_protection when null; live quotes stay firm',
      data: eventData({ const: 'protection' }, { protection: ref('MakerProtectionTrip') }, true),
    },
  },
} as const;

export type EventChannel = keyof typeof EVENTS;
/** The `data` of a notification on `channel`: the union of its events. */
export type EventData<C extends EventChannel> = {
  [K in keyof (typeof EVENTS)[C]]: WireType<((typeof EVENTS)[C][K] & { data: unknown })['data']>;
}[keyof (typeof EVENTS)[C]];
