import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as protocol from '@legwork/protocol';
import * as sdk from '../src/index';

/**
 * The SDK's decimals, wallet and signature checks and payload encoders are `@legwork/protocol`'s,
 * the server's own, proven by the contract's vectors in packages/protocol/test. Here: that every
 * one of them is that very function under the SDK's public name, so the proof holds for the SDK.
 */
const SAME_NAME = [
  'MICRO',
  'I64_MAX',
  'U64_MAX',
  'DecimalError',
  'parseRfqSigned',
  'parseRfqUnsigned',
  'formatHttp',
  'parseHttpDecimal',
  'toRfqDecimal',
  'isSmallOrderKey',
  'encodeWallet',
  'signInMessage',
  'QUOTE_PAYLOAD_SIZE',
  'ACCEPT_PAYLOAD_SIZE',
  'MAX_LEGS',
  'DEFAULT_SERVICE_NAME',
  'signingDomain',
  'encodeQuotePayload',
  'quoteId',
  'encodeAcceptPayload',
  'RECEIPT_SIZE',
  'ReceiptError',
  'decodeReceipt',
] as const;
const RENAMED = [
  ['formatRfq', 'formatRfqInRange'],
  ['decodeWallet', 'parseWallet'],
  ['verifySignature', 'verifyEd25519'],
  ['encodeSignatureBase64', 'encodeBase64Signature'],
  ['decodeSignatureBase64', 'decodeCanonicalBase64Signature'],
] as const;

describe('the SDK re-exports @legwork/protocol', () => {
  for (const name of SAME_NAME) {
    it(`${name} is the protocol's`, () => assert.equal((sdk as Record<string, unknown>)[name], (protocol as Record<string, unknown>)[name]));
  }
  for (const [sdkName, protocolName] of RENAMED) {
    it(`${sdkName} is the protocol's ${protocolName}`, () =>
      assert.equal((sdk as Record<string, unknown>)[sdkName], (protocol as Record<string, unknown>)[protocolName]));
  }

  it('formats only RFQ decimals in range, and names the fault of a refusal', () => {
    assert.equal(sdk.formatRfq(-2_000_000n), '-2');
    assert.throws(() => sdk.formatRfq(-(1n << 63n)), RangeError);
    assert.throws(
      () => sdk.parseRfqSigned(1),
      (e: unknown) => e instanceof sdk.DecimalError && e.fault === 'not_a_string' && e.value === 1,
    );
    assert.throws(
      () => sdk.parseHttpDecimal('0.00000001'),
      (e: unknown) => e instanceof sdk.DecimalError && e.fault === 'too_precise',
    );
  });
});
