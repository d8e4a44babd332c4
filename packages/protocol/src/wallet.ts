import bs58 from 'bs58';
import { toHex } from './encoding';

/**
 * Wallets: base58 of an ed25519 public key (docs/spec/design.md section 3).
 * A wallet is exactly 32 bytes, canonical (decoding then re-encoding gives the same text),
 * and not a small-order point (with such a key anyone can forge a signature).
 */

export type WalletFault = 'not_a_string' | 'not_base58' | 'wrong_length' | 'not_canonical' | 'small_order';

export class WalletError extends Error {
  constructor(
    readonly reason: WalletFault,
    readonly text: unknown,
  ) {
    super(
      `${typeof text === 'string' ? JSON.stringify(text) : `JSON ${text === null ? 'null' : typeof text}`} is not a valid wallet (${reason.replace(/_/g, ' ')})`,
    );
    this.name = 'WalletError';
  }
}

/**
 * The small-order ed25519 points (vectors/signin.json `small_order_public_keys_hex`), compared
 * with the top bit of the last byte cleared, which also covers their non-canonical encodings.
 */
export const SMALL_ORDER_PUBLIC_KEYS_HEX: readonly string[] = Object.freeze([
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
]);
const SMALL_ORDER = new Set(SMALL_ORDER_PUBLIC_KEYS_HEX);

/** The fee account's wallet: 32 zero bytes. A small-order key, so it can never sign in. */
export const FEE_ACCOUNT_WALLET = bs58.encode(new Uint8Array(32));

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** 32 bytes never take more than 44 base58 characters; longer text is refused before decoding. */
const MAX_WALLET_CHARS = 44;

/** True for a 32-byte key that is a small-order point, whatever the top bit of its last byte. */
export function isSmallOrderKey(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const key = Uint8Array.from(bytes);
  key[31] &= 0x7f;
  return SMALL_ORDER.has(toHex(key));
}

/** The 32-byte public key of a wallet text; throws WalletError. */
export function parseWallet(text: unknown): Uint8Array {
  if (typeof text !== 'string') throw new WalletError('not_a_string', text);
  if (!BASE58.test(text)) throw new WalletError('not_base58', text);
  if (text.length > MAX_WALLET_CHARS) throw new WalletError('wrong_length', text);
  const bytes = bs58.decodeUnsafe(text);
  if (bytes === undefined) throw new WalletError('not_base58', text);
  if (bytes.length !== 32) throw new WalletError('wrong_length', text);
  if (bs58.encode(bytes) !== text) throw new WalletError('not_canonical', text);
  if (isSmallOrderKey(bytes)) throw new WalletError('small_order', text);
  return bytes;
}

/** Base58 text of a 32-byte public key. */
export function encodeWallet(bytes: Uint8Array): string {
  if (bytes.length !== 32) throw new Error(`a wallet is 32 bytes, got ${bytes.length}`);
  return bs58.encode(bytes);
}
