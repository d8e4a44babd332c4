import { type KeyObject, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { isSmallOrderKey } from './wallet';

/**
 * Ed25519 through OpenSSL (node:crypto), docs/spec/design.md section 9: OpenSSL refuses a non-canonical S
 * (>= the group order) but not small-order public keys, which are refused here.
 */

/** DER SubjectPublicKeyInfo for an Ed25519 key (OID 1.3.101.112) up to the 32 raw key bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** DER PKCS#8 PrivateKeyInfo for an Ed25519 key up to the 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key and signature of the right sizes, the key not a small-order point. */
function wellFormed(publicKey: Uint8Array, signature: Uint8Array): boolean {
  return publicKey.length === 32 && signature.length === 64 && !isSmallOrderKey(publicKey);
}

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

/**
 * Verifies one signature without a key cache (a client checking now and then); a server that
 * verifies many signatures of the same wallets uses an {@link Ed25519Verifier}. Never throws.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!wellFormed(publicKey, signature)) return false;
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}

/** Verifies with a cache of key objects (building one costs more than the verification). */
export class Ed25519Verifier {
  /** KeyObjects by hex key; a Map keeps insertion order, so re-inserting on use makes it an LRU. */
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly maxEntries = 10_000) {}

  /** Number of cached key objects. */
  get size(): number {
    return this.keys.size;
  }

  /** True only for a valid signature; never throws. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    if (!wellFormed(publicKey, signature)) return false;
    try {
      return verify(null, message, this.keyObject(publicKey), signature);
    } catch {
      return false;
    }
  }

  private keyObject(publicKey: Uint8Array): KeyObject {
    const id = Buffer.from(publicKey).toString('hex');
    let key = this.keys.get(id);
    if (key) {
      this.keys.delete(id);
    } else {
      key = publicKeyObject(publicKey);
      if (this.keys.size >= this.maxEntries) this.keys.delete(this.keys.keys().next().value!);
    }
    this.keys.set(id, key);
    return key;
  }
}

function privateKey(seed32: Uint8Array): KeyObject {
  if (seed32.length !== 32) throw new Error(`an ed25519 seed is 32 bytes, got ${seed32.length}`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed32]), format: 'der', type: 'pkcs8' });
}

/** The 64-byte ed25519 signature of `message` by the key of a 32-byte seed (deterministic). */
export function signEd25519(seed32: Uint8Array, message: Uint8Array): Uint8Array {
  return sign(null, message, privateKey(seed32));
}

/**
 * Signs with one seed's key, built once (building the KeyObject costs about ten signatures): for
 * a signer that signs many messages, as a client does.
 */
export class Ed25519Signer {
  private readonly key: KeyObject;

  constructor(seed32: Uint8Array) {
    this.key = privateKey(seed32);
  }

  sign(message: Uint8Array): Uint8Array {
    return sign(null, message, this.key);
  }
}

/** The 32-byte ed25519 public key of a 32-byte seed. */
export function publicKeyFromSeed(seed32: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKey(seed32)).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_PREFIX.length);
}
