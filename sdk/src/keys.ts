import { type KeyObject, createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import bs58 from 'bs58';

/**
 * Ed25519 wallets through `node:crypto` (design.md sections 3 and 9): a wallet address is the
 * base58 text of the 32-byte public key.
 */

/** DER PKCS#8 PrivateKeyInfo of an Ed25519 key, up to the 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** DER SubjectPublicKeyInfo of an Ed25519 key, up to the 32 raw key bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The small-order Ed25519 points (and, with the top bit of the last byte ignored, their
 * non-canonical encodings). A wallet with such a key could "sign" anything; the server refuses them.
 */
const SMALL_ORDER_KEYS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];

/** True when the 32 bytes are a small-order point (top bit of the last byte ignored). */
export function isSmallOrderKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32) return false;
  const key = Buffer.from(publicKey);
  key[31] &= 0x7f;
  return SMALL_ORDER_KEYS.includes(key.toString('hex'));
}

/**
 * Decodes a wallet address to its 32-byte public key: base58 of exactly 32 bytes, canonical
 * (re-encodes to the same text), not a small-order point.
 * @throws {Error} for anything else
 */
export function decodeWallet(wallet: string): Uint8Array {
  if (typeof wallet !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{1,44}$/.test(wallet)) throw new Error(`wallet ${JSON.stringify(wallet)} is not base58`);
  const bytes = bs58.decode(wallet);
  if (bytes.length !== 32) throw new Error(`wallet ${wallet} is ${bytes.length} bytes, not 32`);
  if (bs58.encode(bytes) !== wallet) throw new Error(`wallet ${wallet} is not canonical base58`);
  if (isSmallOrderKey(bytes)) throw new Error(`wallet ${wallet} is a small-order key`);
  return bytes;
}

/** The base58 wallet address of a 32-byte public key. */
export function encodeWallet(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new Error(`a public key is 32 bytes, got ${publicKey.length}`);
  return bs58.encode(publicKey);
}

/**
 * Verifies an Ed25519 signature (OpenSSL refuses a non-canonical S; small-order keys are
 * refused here). Never throws.
 */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64 || isSmallOrderKey(publicKey)) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** An Ed25519 key pair: the wallet that signs in, quotes and accepts. */
export class Keypair {
  /** The 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** The wallet address: base58 of {@link publicKey}. */
  readonly wallet: string;
  private readonly privateKey: KeyObject;

  private constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new Error(`an ed25519 seed is 32 bytes, got ${seed?.length}`);
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.publicKey = new Uint8Array(spki.subarray(spki.length - 32));
    this.wallet = bs58.encode(this.publicKey);
  }

  /** The key pair of a 32-byte seed (the first half of a Solana 64-byte secret key). */
  static fromSeed(seed: Uint8Array): Keypair {
    return new Keypair(seed);
  }

  /** A fresh key pair from the system CSPRNG. */
  static generate(): Keypair {
    return new Keypair(randomBytes(32));
  }

  /** The 64-byte Ed25519 signature of `message` (a string is signed as its UTF-8 bytes). Deterministic. */
  sign(message: Uint8Array | string): Uint8Array {
    const bytes = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
    return new Uint8Array(sign(null, bytes, this.privateKey));
  }

  /** The base58 signature of a sign-in message, as `public/auth` and `POST /v1/auth/session` take it. */
  signBase58(message: Uint8Array | string): string {
    return bs58.encode(this.sign(message));
  }
}

/**
 * The exact sign-in text of design.md section 3:
 * `Sign in to <service>\n\nWallet: <wallet>\nNonce: <nonce>`.
 */
export function signInMessage(serviceName: string, wallet: string, nonce: string): string {
  return `Sign in to ${serviceName}\n\nWallet: ${wallet}\nNonce: ${nonce}`;
}

/**
 * The message to sign for a nonce reply: the server's `message` when it gives one (after checking
 * that it is a sign-in message for this wallet and nonce, so the SDK never signs arbitrary text),
 * else the message built with `serviceName`.
 * @throws {Error} when the server's message is not a sign-in message for this wallet and nonce
 */
export function messageToSign(reply: { nonce: string; message?: string }, wallet: string, serviceName = 'Legwork'): string {
  if (typeof reply?.nonce !== 'string' || !/^[\x21-\x7e]+$/.test(reply.nonce)) throw new Error('the nonce reply carries no valid nonce');
  if (reply.message === undefined) return signInMessage(serviceName, wallet, reply.nonce);
  const m = /^Sign in to ([^\n]+)\n\nWallet: ([^\n]+)\nNonce: ([^\n]+)$/.exec(reply.message);
  if (!m || m[2] !== wallet || m[3] !== reply.nonce) throw new Error('the server message is not a sign-in message for this wallet and nonce');
  return reply.message;
}
