import nacl from 'tweetnacl';
import { loadVector } from '../../../test/vectors';
import { Ed25519Signer, Ed25519Verifier, decodeBase58Signature, parseWallet, publicKeyFromSeed, signEd25519, signInMessage, verifyEd25519 } from '../src';
import { addOrderToS } from './malleate';

const signin = loadVector('signin.json');
const hex = (text: string) => Buffer.from(text, 'hex');

describe('ed25519 (vectors/signin.json)', () => {
  const seed = hex(signin.wallet_seed_hex);
  const wallet = parseWallet(signin.wallet);
  const message = Buffer.from(signin.message, 'utf8');
  const signature = decodeBase58Signature(signin.signature_base58)!;

  it('builds the sign-in message of design.md section 3', () => {
    expect(`Sign in to ${signin.service_name}\n\nWallet: ${signin.wallet}\nNonce: ${signin.nonce}`).toBe(signin.message);
    expect(signInMessage(signin.service_name, signin.wallet, signin.nonce)).toBe(signin.message);
  });

  it('verifies the vector sign-in signature', () => {
    expect(new Ed25519Verifier().verify(wallet, message, signature)).toBe(true);
  });

  it('reproduces the vector signature from the seed (deterministic) and agrees with tweetnacl', () => {
    expect(Buffer.from(signEd25519(seed, message))).toEqual(Buffer.from(signature));
    const pair = nacl.sign.keyPair.fromSeed(seed);
    expect(Buffer.from(publicKeyFromSeed(seed))).toEqual(Buffer.from(pair.publicKey));
    expect(Buffer.from(nacl.sign.detached(message, pair.secretKey))).toEqual(Buffer.from(signature));
  });

  it('refuses any one-bit flip of the signature, the message or the key', () => {
    const verifier = new Ed25519Verifier();
    for (const bit of [0, 7, 255, 256, 300, 511]) {
      const flipped = Buffer.from(signature);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(verifier.verify(wallet, message, flipped)).toBe(false);
    }
    const otherMessage = Buffer.from(message);
    otherMessage[0] ^= 1;
    expect(verifier.verify(wallet, otherMessage, signature)).toBe(false);
    const otherKey = Buffer.from(wallet);
    otherKey[0] ^= 1;
    expect(verifier.verify(otherKey, message, signature)).toBe(false);
  });

  it('refuses a non-canonical S (S + L), which tweetnacl would accept', () => {
    const malleated = addOrderToS(signature);
    expect(nacl.sign.detached.verify(message, malleated, wallet)).toBe(true);
    expect(new Ed25519Verifier().verify(wallet, message, malleated)).toBe(false);
  });

  it('refuses every small-order key, even where the signature would verify', () => {
    const verifier = new Ed25519Verifier();
    // With the identity point as key, R = identity and S = 0 is a valid signature of anything.
    const identity = hex(signin.small_order_public_keys_hex[1]);
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    expect(nacl.sign.detached.verify(message, forged, identity)).toBe(true);
    for (const h of signin.small_order_public_keys_hex) {
      const key = hex(h);
      expect(verifier.verify(key, message, forged)).toBe(false);
      key[31] |= 0x80;
      expect(verifier.verify(key, message, forged)).toBe(false);
      // Asked again: the check is made before a key is cached, and a refused key is never cached.
      expect(verifier.verify(key, message, forged)).toBe(false);
    }
    expect(verifier.size).toBe(0);
  });

  it('returns false, never throws, on wrong lengths or a key that is not a point', () => {
    const verifier = new Ed25519Verifier();
    expect(verifier.verify(wallet, message, signature.subarray(0, 63))).toBe(false);
    expect(verifier.verify(wallet, message, Buffer.concat([signature, Buffer.alloc(1)]))).toBe(false);
    expect(verifier.verify(wallet.subarray(0, 31), message, signature)).toBe(false);
    // y = 2 is not the y coordinate of any curve point.
    const notAPoint = Buffer.alloc(32);
    notAPoint[0] = 2;
    expect(() => verifier.verify(notAPoint, message, signature)).not.toThrow();
    expect(verifier.verify(notAPoint, message, signature)).toBe(false);
  });

  it('keeps a bounded least-recently-used cache of keys', () => {
    const verifier = new Ed25519Verifier(3);
    const seeds = [1, 2, 3, 4].map((n) => Buffer.alloc(32, n));
    const keys = seeds.map(publicKeyFromSeed);
    const sigs = seeds.map((s) => signEd25519(s, message));
    for (let i = 0; i < 3; i++) expect(verifier.verify(keys[i], message, sigs[i])).toBe(true);
    expect(verifier.verify(keys[0], message, sigs[0])).toBe(true); // key 0 becomes the newest
    expect(verifier.verify(keys[3], message, sigs[3])).toBe(true); // evicts key 1
    expect(verifier.size).toBe(3);
    for (let i = 0; i < 4; i++) expect(verifier.verify(keys[i], message, sigs[i])).toBe(true);
    expect(verifier.size).toBe(3);
  });

  it('refuses a seed that is not 32 bytes', () => {
    expect(() => signEd25519(new Uint8Array(31), message)).toThrow();
    expect(() => publicKeyFromSeed(new Uint8Array(64))).toThrow();
  });
});

describe('Ed25519Signer', () => {
  it('signs as signEd25519 does, with the key built once', () => {
    const seed = Buffer.alloc(32, 7);
    const signer = new Ed25519Signer(seed);
    for (const message of [Buffer.from('a'), Buffer.alloc(1050, 3)]) {
      expect(Buffer.from(signer.sign(message))).toEqual(Buffer.from(signEd25519(seed, message)));
      expect(new Ed25519Verifier().verify(publicKeyFromSeed(seed), message, signer.sign(message))).toBe(true);
    }
  });
});

describe("verifyEd25519 (no key cache, the SDK's verifier): the same answers as Ed25519Verifier", () => {
  const wallet = parseWallet(signin.wallet);
  const message = Buffer.from(signin.message, 'utf8');
  const signature = decodeBase58Signature(signin.signature_base58)!;
  const cached = new Ed25519Verifier();
  const both = (key: Uint8Array, msg: Uint8Array, sig: Uint8Array) => [verifyEd25519(key, msg, sig), cached.verify(key, msg, sig)];

  it('accepts the vector signature and refuses one-bit flips', () => {
    expect(both(wallet, message, signature)).toEqual([true, true]);
    for (const bit of [0, 255, 256, 511]) {
      const flipped = Buffer.from(signature);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(both(wallet, message, flipped)).toEqual([false, false]);
    }
  });

  it('refuses a non-canonical S, small-order keys, wrong lengths and non-points without throwing', () => {
    expect(both(wallet, message, addOrderToS(signature))).toEqual([false, false]);
    const identity = hex(signin.small_order_public_keys_hex[1]);
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    for (const h of signin.small_order_public_keys_hex) expect(both(hex(h), message, forged)).toEqual([false, false]);
    expect(both(wallet, message, signature.subarray(0, 63))).toEqual([false, false]);
    expect(both(wallet.subarray(0, 31), message, signature)).toEqual([false, false]);
    const notAPoint = Buffer.alloc(32);
    notAPoint[0] = 2;
    expect(both(notAPoint, message, signature)).toEqual([false, false]);
  });
});
