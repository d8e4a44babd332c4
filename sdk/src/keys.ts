import { randomBytes } from 'node:crypto';
import { Ed25519Signer, encodeWallet, publicKeyFromSeed, signInMessage } from '@legwork/protocol';
import bs58 from 'bs58';

/**
 * Key pairs and the sign-in exchange. A wallet address is the base58 text of the 32-byte Ed25519
 * public key (docs/spec/design.md section 3); decoding wallets, verifying signatures and the sign-in text
 * are `@legwork/protocol`'s, shared with the server and re-exported by this package.
 */

/** An Ed25519 key pair: the wallet that signs in, quotes and accepts. */
export class Keypair {
  /** The 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** The wallet address: base58 of {@link publicKey}. */
  readonly wallet: string;
  private readonly signer: Ed25519Signer;

  private constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new Error(`an ed25519 seed is 32 bytes, got ${seed?.length}`);
    this.signer = new Ed25519Signer(seed);
    this.publicKey = new Uint8Array(publicKeyFromSeed(seed));
    this.wallet = encodeWallet(this.publicKey);
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
    return new Uint8Array(this.signer.sign(bytes));
  }

  /** The base58 signature of a sign-in message, as `public/auth` and `POST /v1/auth/session` take it. */
  signBase58(message: Uint8Array | string): string {
    return bs58.encode(this.sign(message));
  }
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
