import { type RfqRow, toRfqRecord } from './rfq-row';

const row: RfqRow = {
  id: '01935f3a8b2c7d4e8f00112233445566',
  account_id: '7',
  client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: '-1.5' }],
  asset: 'SOL',
  expiry: '1798358400',
  state: 'filled',
  created_at: '1795000000',
  updated_at: '1795000040',
  expires_at: '1795000120',
  max_quote_expires_at: '1795003600',
  quote_id: 'ab'.repeat(32),
  maker_account_id: '9',
  maker_wallet: '3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx',
  quote_nonce: '18446744073709551615',
  bid: '-9223372036854775807',
  ask: '9223372036854775807',
  issued_at: '1795000005',
  quote_expires_at: '1795000065',
  maker_signature: 'c2ln',
  quote_received_at_ms: '1795000010123',
  decline_reason: null,
  declined_by: null,
  accepted_side: 'buy',
  failure_error: null,
  failure_message: null,
  fill_id: '12',
  fill_price: '9223372036854775807',
  fill_fee: '4500',
  filled_at: '1795000040',
  fill_reverted: false,
  ended_at: '1795000040',
  cancelled_at: null,
  competition: null,
};

describe('rfqs row → record', () => {
  it('keeps bigint values exact and turns times and ids into numbers', () => {
    const rfq = toRfqRecord(row);
    expect(rfq).toMatchObject({ accountId: 7, expiry: 1798358400, state: 'filled', endedAt: 1795000040, acceptedSide: 'buy', failure: null });
    expect(rfq.legs).toEqual([{ instrument: 'SOL-27DEC26-150-C', quantity: -1_500_000n }]);
    expect(rfq.quote).toEqual({
      quoteId: 'ab'.repeat(32),
      makerAccountId: 9,
      makerWallet: row.maker_wallet,
      quoteNonce: 18446744073709551615n,
      bid: -9223372036854775807n,
      ask: 9223372036854775807n,
      issuedAt: 1795000005,
      expiresAt: 1795000065,
      makerSignature: 'c2ln',
      receivedAtMs: 1795000010123,
    });
    expect(rfq.fill).toEqual({ fillId: '12', price: 9223372036854775807n, fee: 4500n, filledAt: 1795000040, reverted: false });
  });

  it('a pending row has no quote, fill or failure', () => {
    const pending = toRfqRecord({
      ...row,
      state: 'pending',
      quote_id: null,
      maker_account_id: null,
      maker_wallet: null,
      quote_nonce: null,
      bid: null,
      ask: null,
      issued_at: null,
      quote_expires_at: null,
      maker_signature: null,
      quote_received_at_ms: null,
      accepted_side: null,
      fill_id: null,
      fill_price: null,
      fill_fee: null,
      filled_at: null,
      ended_at: null,
    });
    expect(pending).toMatchObject({ quote: null, fill: null, failure: null, acceptedSide: null, endedAt: null, declinedBy: null, cancelledAt: null });
  });

  it('a cancelled row carries the time of the cancel', () => {
    expect(toRfqRecord({ ...row, state: 'expired', cancelled_at: '1795000050' })).toMatchObject({ state: 'expired', cancelledAt: 1795000050 });
  });

  it('a failed row carries its failure', () => {
    expect(toRfqRecord({ ...row, state: 'failed', failure_error: 'RFQ_TX_FAILED', failure_message: 'reverted', fill_reverted: true })).toMatchObject({
      failure: { error: 'RFQ_TX_FAILED', message: 'reverted' },
      fill: { reverted: true },
    });
  });
});
