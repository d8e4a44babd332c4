import { ed25519 } from '@noble/curves/ed25519.js';
import { toHex } from './encoding';
import { type NodeCrypto, type NodeKeyObject, nodeCrypto, plainBytes } from './node-crypto';
import { isSmallOrderKey } from './wallet';

/**
 * Ed25519 (docs/spec/design.md section 9) through one of two implementations with the same
 * answers: OpenSSL where the package runs in Node (./node-crypto), @noble/curves elsewhere (a
 * browser). Both refuse a non-canonical S (>= the group order); small-order public keys, which
 * neither refuses everywhere, are refused here. OpenSSL checks the cofactorless equation and noble
 * (strict RFC 8032 decoding) the cofactored one: they can differ only on a signature made with a
 * small-order part in R on purpose, which no RFC 8032 signer makes.
 */

/** One ed25519 implementation; its key objects are built once and reused (building one costs more than a signature). */
export interface Ed25519Implementation<PublicKey = unknown, PrivateKey = unknown> {
  readonly name: 'node:crypto' | '@noble/curves';
  /** May throw for bytes that are not a key. */
  publicKey(bytes: Uint8Array): PublicKey;
  /** Throws unless `seed32` is 32 bytes. */
  privateKey(seed32: Uint8Array): PrivateKey;
  /** May throw for a signature that cannot be read. */
  verify(key: PublicKey, message: Uint8Array, signature: Uint8Array): boolean;
  sign(key: PrivateKey, message: Uint8Array): Uint8Array;
  /** The 32-byte public key of a private key. */
  publicKeyOf(key: PrivateKey): Uint8Array;
}

function checkSeed(seed32: Uint8Array): Uint8Array {
  if (seed32.length !== 32) throw new Error(`an ed25519 seed is 32 bytes, got ${seed32.length}`);
  return seed32;
}

/** @noble/curves (audited, pure JavaScript): strict RFC 8032 decoding of keys and R (no ZIP-215 leniency). */
export const nobleEd25519: Ed25519Implementation<Uint8Array, Uint8Array> = {
  name: '@noble/curves',
  publicKey: (bytes) => bytes,
  privateKey: (seed32) => Uint8Array.from(checkSeed(seed32)),
  verify: (key, message, signature) => ed25519.verify(signature, message, key, { zip215: false }),
  sign: (seed, message) => ed25519.sign(message, seed),
  publicKeyOf: (seed) => ed25519.getPublicKey(seed),
};

/** DER SubjectPublicKeyInfo for an Ed25519 key (OID 1.3.101.112) up to the 32 raw key bytes. */
const SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);
/** DER PKCS#8 PrivateKeyInfo for an Ed25519 key up to the 32-byte seed. */
const PKCS8_PREFIX = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20);

function der(prefix: Uint8Array, bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + bytes.length);
  out.set(prefix);
  out.set(bytes, prefix.length);
  return out;
}

function openSslEd25519(crypto: NodeCrypto): Ed25519Implementation<NodeKeyObject, NodeKeyObject> {
  return {
    name: 'node:crypto',
    publicKey: (bytes) => crypto.createPublicKey({ key: der(SPKI_PREFIX, bytes), format: 'der', type: 'spki' }),
    privateKey: (seed32) => crypto.createPrivateKey({ key: der(PKCS8_PREFIX, checkSeed(seed32)), format: 'der', type: 'pkcs8' }),
    verify: (key, message, signature) => crypto.verify(null, message, key, signature),
    sign: (key, message) => plainBytes(crypto.sign(null, message, key)),
    publicKeyOf: (key) => plainBytes(crypto.createPublicKey(key).export({ format: 'der', type: 'spki' })).subarray(SPKI_PREFIX.length),
  };
}

/** OpenSSL through node:crypto; undefined where the package does not run in Node. */
export const nodeEd25519: Ed25519Implementation<NodeKeyObject, NodeKeyObject> | undefined = nodeCrypto && openSslEd25519(nodeCrypto);

/** What every function and class here uses unless given another: OpenSSL in Node, noble elsewhere. */
export const defaultEd25519: Ed25519Implementation = nodeEd25519 ?? nobleEd25519;

/** A key and signature of the right sizes, the key not a small-order point. */
function wellFormed(publicKey: Uint8Array, signature: Uint8Array): boolean {
  return publicKey?.length === 32 && signature?.length === 64 && !isSmallOrderKey(publicKey);
}

/**
 * Verifies one signature without a key cache (a client checking now and then); a server that
 * verifies many signatures of the same wallets uses an {@link Ed25519Verifier}. Never throws.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!wellFormed(publicKey, signature)) return false;
  try {
    return defaultEd25519.verify(defaultEd25519.publicKey(publicKey), message, signature);
  } catch {
    return false;
  }
}

/** Verifies with a cache of key objects (building one costs more than the verification). */
export class Ed25519Verifier {
  /** Key objects by hex key; a Map keeps insertion order, so re-inserting on use makes it an LRU. */
  private readonly keys = new Map<string, unknown>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly implementation: Ed25519Implementation = defaultEd25519,
  ) {}

  /** Number of cached key objects. */
  get size(): number {
    return this.keys.size;
  }

  /** True only for a valid signature; never throws. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    if (publicKey?.length !== 32 || signature?.length !== 64) return false;
    try {
      const key = this.keyObject(publicKey);
      return key !== null && this.implementation.verify(key, message, signature);
    } catch {
      return false;
    }
  }

  /** The cached key object, or null for a small-order key (checked once, when the key is first cached: a cached key passed it). */
  private keyObject(publicKey: Uint8Array): unknown {
    const id = toHex(publicKey);
    let key = this.keys.get(id);
    if (key !== undefined) {
      this.keys.delete(id);
    } else {
      if (isSmallOrderKey(publicKey)) return null;
      key = this.implementation.publicKey(publicKey);
      if (this.keys.size >= this.maxEntries) this.keys.delete(this.keys.keys().next().value!);
    }
    this.keys.set(id, key);
    return key;
  }
}

/** The 64-byte ed25519 signature of `message` by the key of a 32-byte seed (deterministic). */
export function signEd25519(seed32: Uint8Array, message: Uint8Array): Uint8Array {
  return defaultEd25519.sign(defaultEd25519.privateKey(seed32), message);
}

/**
 * Signs with one seed's key, built once (building the key object costs about ten signatures): for
 * a signer that signs many messages, as a client does.
 */
export class Ed25519Signer {
  private readonly key: unknown;

  constructor(
    seed32: Uint8Array,
    private readonly implementation: Ed25519Implementation = defaultEd25519,
  ) {
    this.key = implementation.privateKey(seed32);
  }

  sign(message: Uint8Array): Uint8Array {
    return this.implementation.sign(this.key, message);
  }
}

/** The 32-byte ed25519 public key of a 32-byte seed. */
export function publicKeyFromSeed(seed32: Uint8Array): Uint8Array {
  return defaultEd25519.publicKeyOf(defaultEd25519.privateKey(seed32));
}
