import bs58 from 'bs58';
import { loadVector } from '../../../test/vectors';
import { FEE_ACCOUNT_WALLET, SMALL_ORDER_PUBLIC_KEYS_HEX, WalletError, encodeWallet, isSmallOrderKey, parseWallet, publicKeyFromSeed } from '../src';

const signin = loadVector('signin.json');
const payloads = loadVector('payloads.json');
const hex = (text: string) => Buffer.from(text, 'hex');

function refusal(text: unknown): WalletError {
  try {
    parseWallet(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WalletError);
    return error as WalletError;
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
}

describe('wallets (vectors/signin.json)', () => {
  it('derives the vector wallet from its seed and parses it back', () => {
    const key = publicKeyFromSeed(hex(signin.wallet_seed_hex));
    expect(encodeWallet(key)).toBe(signin.wallet);
    expect(Buffer.from(parseWallet(signin.wallet))).toEqual(Buffer.from(key));
  });

  it('derives the maker and taker wallets of payloads.json from their seeds', () => {
    expect(encodeWallet(publicKeyFromSeed(hex(payloads.maker_seed_hex)))).toBe(payloads.maker_wallet);
    expect(encodeWallet(publicKeyFromSeed(hex(payloads.taker_seed_hex)))).toBe(payloads.taker_wallet);
  });

  it.each(signin.invalid_wallets.map((v: any) => [v.text, v.why]) as [string, string][])('refuses %j (%s)', (text) => {
    refusal(text);
  });

  it('gives the reason of each refusal', () => {
    expect(refusal(42).reason).toBe('not_a_string');
    expect(refusal(null).reason).toBe('not_a_string');
    expect(refusal('').reason).toBe('not_base58');
    expect(refusal(signin.wallet + '0').reason).toBe('not_base58');
    expect(refusal('1' + signin.wallet).reason).toBe('wrong_length');
    expect(refusal('1111111111111111111111111111111').reason).toBe('wrong_length');
    expect(refusal('z'.repeat(1000)).reason).toBe('wrong_length');
    expect(refusal('11111111111111111111111111111111').reason).toBe('small_order');
  });

  it('hard-codes exactly the small-order list of the vectors', () => {
    expect([...SMALL_ORDER_PUBLIC_KEYS_HEX]).toEqual(signin.small_order_public_keys_hex);
  });

  it.each(signin.small_order_public_keys_hex.map((h: string) => [h]) as [string][])('refuses the small-order key %s, with or without the top bit', (h) => {
    const key = hex(h);
    const flipped = Buffer.from(key);
    flipped[31] |= 0x80;
    for (const bytes of [key, flipped]) {
      expect(isSmallOrderKey(bytes)).toBe(true);
      expect(refusal(bs58.encode(bytes)).reason).toBe('small_order');
    }
  });

  it('does not flag an ordinary key as small order', () => {
    expect(isSmallOrderKey(parseWallet(signin.wallet))).toBe(false);
    expect(isSmallOrderKey(new Uint8Array(31))).toBe(false);
  });

  it('has the fee account wallet as 32 zero bytes, which parseWallet refuses', () => {
    expect(FEE_ACCOUNT_WALLET).toBe('11111111111111111111111111111111');
    expect(Buffer.from(bs58.decode(FEE_ACCOUNT_WALLET))).toEqual(Buffer.alloc(32));
    expect(refusal(FEE_ACCOUNT_WALLET).reason).toBe('small_order');
  });

  it('encodes only 32 bytes', () => {
    expect(() => encodeWallet(new Uint8Array(33))).toThrow();
  });
});
