import type { RfqRecord } from './rfq-record';
import { sameLegs } from './rfq-record';
import { closedRfqView, makerQuoteEvent, openRfqView, rfqView } from './rfq-view';

const pending: RfqRecord = {
  id: '01935f3a8b2c7d4e8f00112233445566',
  accountId: 7,
  clientRef: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  legs: [
    { instrument: 'SOL-27DEC26-150-C', quantity: 1_500_000n },
    { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n },
  ],
  asset: 'SOL',
  expiry: 1_798_358_400,
  state: 'pending',
  createdAt: 1_795_000_000,
  updatedAt: 1_795_000_000,
  expiresAt: 1_795_000_120,
  maxQuoteExpiresAt: 1_795_003_600,
  quote: null,
  declineReason: null,
  declinedBy: null,
  acceptedSide: null,
  failure: null,
  fill: null,
  endedAt: null,
  cancelledAt: null,
  competition: null,
};

const quoted: RfqRecord = {
  ...pending,
  state: 'quoted',
  updatedAt: 1_795_000_010,
  quote: {
    quoteId: 'ab'.repeat(32),
    makerAccountId: 9,
    makerWallet: '3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx',
    quoteNonce: 18446744073709551615n,
    bid: -12_500_000n,
    ask: 13_250_000n,
    issuedAt: 1_795_000_005,
    expiresAt: 1_795_000_065,
    makerSignature: 'c2ln',
  },
};

describe('RFQ views (design.md section 5)', () => {
  it('the taker view of a pending RFQ', () => {
    expect(rfqView(pending)).toEqual({
      rfq_id: pending.id,
      client_ref: pending.clientRef,
      state: 'pending',
      legs: [
        { instrument: 'SOL-27DEC26-150-C', quantity: '1.5' },
        { instrument: 'SOL-27DEC26-140-P', quantity: '-2' },
      ],
      created_at: 1_795_000_000,
      updated_at: 1_795_000_000,
      expires_at: 1_795_000_120,
      max_quote_expires_at: 1_795_003_600,
      quote: null,
      accepted_side: null,
      decline_reason: null,
      failure: null,
      fill: null,
      cancelled_at: null,
      competition: null,
      quotes: null,
      best: null,
    });
  });

  it('a cancelled RFQ is expired with the time of the cancel', () => {
    expect(rfqView({ ...quoted, state: 'expired', endedAt: 1_795_000_010, cancelledAt: 1_795_000_010 })).toMatchObject({
      state: 'expired',
      cancelled_at: 1_795_000_010,
    });
  });

  it('carries the quote with the maker wallet, so the taker can rebuild the payload', () => {
    expect(rfqView(quoted).quote).toEqual({
      quote_id: 'ab'.repeat(32),
      maker: '3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx',
      quote_nonce: '18446744073709551615',
      bid: '-12.5',
      ask: '13.25',
      issued_at: 1_795_000_005,
      expires_at: 1_795_000_065,
      maker_signature: 'c2ln',
    });
  });

  it('carries accepted side, decline reason, failure and fill', () => {
    const filled: RfqRecord = {
      ...quoted,
      state: 'failed',
      acceptedSide: 'sell',
      failure: { error: 'RFQ_TX_FAILED', message: 'reverted' },
      fill: { fillId: '42', price: -12_500_000n, fee: 4_500n, filledAt: 1_795_000_030, reverted: true },
    };
    const view = rfqView(filled);
    expect(view.accepted_side).toBe('sell');
    expect(view.failure).toEqual({ error: 'RFQ_TX_FAILED', message: 'reverted' });
    expect(view.fill).toEqual({ fill_id: '42', side: 'sell', price: '-12.5', fee: '0.0045', filled_at: 1_795_000_030, reverted: true });
    expect(rfqView({ ...pending, state: 'declined', declineReason: 'size_limit', declinedBy: 9 }).decline_reason).toBe('size_limit');
  });

  it('keeps the taker anonymous to makers', () => {
    const open = openRfqView(pending);
    expect(open).toEqual({
      rfq_id: pending.id,
      legs: [
        { instrument: 'SOL-27DEC26-150-C', quantity: '1.5' },
        { instrument: 'SOL-27DEC26-140-P', quantity: '-2' },
      ],
      created_at: 1_795_000_000,
      expires_at: 1_795_000_120,
      max_quote_expires_at: 1_795_003_600,
    });
    expect(JSON.stringify(closedRfqView(quoted))).not.toMatch(/client_ref|account|"maker|"quote"|quote_id/);
    expect(closedRfqView(quoted).state).toBe('quoted');
  });

  it('the maker event of the quote holder', () => {
    expect(makerQuoteEvent(pending)).toBeNull();
    expect(makerQuoteEvent({ ...quoted, state: 'expired' })).toEqual({
      rfq_id: pending.id,
      quote_id: 'ab'.repeat(32),
      state: 'expired',
      side: null,
      fill: null,
    });
    expect(makerQuoteEvent({ ...quoted, state: 'accepted', acceptedSide: 'buy' })).toMatchObject({ state: 'accepted', side: 'buy', fill: null });
  });

  it("the taker's copy of a fill's receipt carries the salt, the maker's never (design.md 16)", () => {
    const receipt = { journal_seq: 3, kind: 0 as const, payload: 'AAEC', hash: 'ab'.repeat(32), key_id: 'e667e8d6b484d58c', signature: 'c2ln' };
    const salt = 'cd'.repeat(32);
    const filled: RfqRecord = {
      ...quoted,
      state: 'filled',
      acceptedSide: 'buy',
      fill: { fillId: '42', price: 13_250_000n, fee: 4_500n, filledAt: 1_795_000_030, reverted: false, receipt, takerSalt: salt },
    };
    expect(rfqView(filled).fill?.receipt).toEqual({ ...receipt, taker_salt: salt });
    const makers = makerQuoteEvent(filled)!;
    expect(makers.fill?.receipt).toEqual(receipt);
    expect(JSON.stringify(makers)).not.toContain(salt);
    // Without a salt (a fill signed as version 1), both see the receipt as signed.
    expect(rfqView({ ...filled, fill: { ...filled.fill!, takerSalt: undefined } }).fill?.receipt).toEqual(receipt);
  });

  it('compares legs by canonical value in order', () => {
    expect(sameLegs(pending.legs, [...pending.legs])).toBe(true);
    expect(sameLegs(pending.legs, [...pending.legs].reverse())).toBe(false);
    expect(sameLegs(pending.legs, pending.legs.slice(0, 1))).toBe(false);
    expect(sameLegs(pending.legs, [pending.legs[0], { ...pending.legs[1], quantity: 2_000_000n }])).toBe(false);
  });
});
