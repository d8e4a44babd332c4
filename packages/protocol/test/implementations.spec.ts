import { randomBytes } from 'node:crypto';
import { loadVector } from '../../../test/vectors';
import {
  type Ed25519Implementation,
  Ed25519Signer,
  Ed25519Verifier,
  decodeBase58Signature,
  defaultEd25519,
  encodeWallet,
  fromBase64,
  keyIdOf,
  nobleEd25519,
  nodeEd25519,
  portableSha256,
  sha256,
  toHex,
} from '../src';
import { addOrderToS } from './malleate';

/**
 * The two implementations the package picks from (OpenSSL in Node, @noble elsewhere) held to the
 * contract's vectors and to each other, so that a browser (the console) checks what the server
 * signs exactly as the server would. test/browser-bundle.spec.ts runs the package where only the
 * portable one exists.
 */

const signin = loadVector('signin.json');
const payloads = loadVector('payloads.json');
const receipts = loadVector('receipts.json');
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const utf8 = (text: string) => Uint8Array.from(Buffer.from(text, 'utf8'));

/** Every (seed, message, signature) the vectors sign. */
const signed: Array<{ seed: Uint8Array; message: Uint8Array; signature: Uint8Array }> = [
  { seed: hex(signin.wallet_seed_hex), message: utf8(signin.message), signature: decodeBase58Signature(signin.signature_base58)! },
  ...payloads.cases.flatMap((c: any) => [
    { seed: hex(payloads.maker_seed_hex), message: hex(c.quote_payload_hex), signature: fromBase64(c.maker_signature)! },
    ...c.accepts.map((a: any) => ({ seed: hex(payloads.taker_seed_hex), message: hex(a.payload_hex), signature: fromBase64(a.taker_signature)! })),
  ]),
  ...receipts.receipts.map((r: any) => ({ seed: hex(receipts.exchange_seed_hex), message: hex(r.payload_hex), signature: fromBase64(r.signature)! })),
  { seed: hex(receipts.exchange_seed_hex), message: hex(receipts.version_1.payload_hex), signature: fromBase64(receipts.version_1.signature)! },
];

it('in Node, the package hashes and signs through OpenSSL', () => {
  expect(nodeEd25519?.name).toBe('node:crypto');
  expect(defaultEd25519).toBe(nodeEd25519);
});

describe.each([nodeEd25519!, nobleEd25519].map((i) => [i.name, i]) as [string, Ed25519Implementation][])('ed25519 through %s', (_name, implementation) => {
  const publicKey = (seed: Uint8Array) => implementation.publicKeyOf(implementation.privateKey(seed));
  const verifier = new Ed25519Verifier(100, implementation);

  it('derives the vector wallets and the exchange key from their seeds', () => {
    expect(encodeWallet(publicKey(hex(signin.wallet_seed_hex)))).toBe(signin.wallet);
    expect(encodeWallet(publicKey(hex(payloads.maker_seed_hex)))).toBe(payloads.maker_wallet);
    expect(encodeWallet(publicKey(hex(payloads.taker_seed_hex)))).toBe(payloads.taker_wallet);
    expect(encodeWallet(publicKey(hex(receipts.exchange_seed_hex)))).toBe(receipts.exchange_public_key);
  });

  it('reproduces and verifies every signature of the vectors (sign-in, quotes, accepts, receipts)', () => {
    for (const v of signed) {
      expect(toHex(new Ed25519Signer(v.seed, implementation).sign(v.message))).toBe(toHex(v.signature));
      expect(verifier.verify(publicKey(v.seed), v.message, v.signature)).toBe(true);
    }
  });

  it('refuses one-bit flips, a non-canonical S, small-order keys and non-points, never throwing', () => {
    const v = signed[0];
    const key = publicKey(v.seed);
    for (const bit of [0, 7, 255, 256, 300, 511]) {
      const flipped = Uint8Array.from(v.signature);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(verifier.verify(key, v.message, flipped)).toBe(false);
    }
    expect(verifier.verify(key, v.message, addOrderToS(v.signature))).toBe(false);
    // With the identity point as key, R = identity and S = 0 is a valid signature of anything.
    const forged = new Uint8Array(64);
    forged.set(hex(signin.small_order_public_keys_hex[1]));
    for (const h of signin.small_order_public_keys_hex) expect(verifier.verify(hex(h), v.message, forged)).toBe(false);
    const notAPoint = new Uint8Array(32);
    notAPoint[0] = 2;
    expect(verifier.verify(notAPoint, v.message, v.signature)).toBe(false);
    expect(verifier.verify(key, v.message, v.signature.subarray(0, 63))).toBe(false);
  });

  it('refuses a seed that is not 32 bytes', () => {
    expect(() => implementation.privateKey(new Uint8Array(31))).toThrow('32 bytes');
  });
});

it('OpenSSL and noble agree on random keys and messages, signed and tampered', () => {
  const node = new Ed25519Verifier(10, nodeEd25519);
  const noble = new Ed25519Verifier(10, nobleEd25519);
  for (let i = 0; i < 40; i++) {
    const seed = Uint8Array.from(randomBytes(32));
    const message = Uint8Array.from(randomBytes(i * 37));
    const signature = new Ed25519Signer(seed, nodeEd25519).sign(message);
    expect(toHex(new Ed25519Signer(seed, nobleEd25519).sign(message))).toBe(toHex(signature));
    const key = nobleEd25519.publicKeyOf(seed);
    const tampered = Uint8Array.from(signature);
    tampered[i % 64] ^= 0x10;
    for (const sig of [signature, tampered, addOrderToS(signature)]) expect(noble.verify(key, message, sig)).toBe(node.verify(key, message, sig));
  }
});

describe('SHA-256', () => {
  it('OpenSSL and noble agree on every length up to 300 bytes and on the payload sizes, in parts too', () => {
    const bytes = Uint8Array.from(randomBytes(1072));
    for (const n of [...Array.from({ length: 301 }, (_, i) => i), 1050, 1072])
      expect(toHex(sha256(bytes.subarray(0, n)))).toBe(toHex(portableSha256(bytes.subarray(0, n))));
    expect(toHex(portableSha256(bytes.subarray(0, 13), bytes.subarray(13, 45), bytes.subarray(45)))).toBe(toHex(sha256(bytes)));
  });

  it("gives the vectors' domain, quote ids, receipt hashes and key id through noble", () => {
    expect(toHex(portableSha256(utf8(payloads.service_name)))).toBe(payloads.domain_hex);
    for (const c of payloads.cases) expect(toHex(portableSha256(hex(c.quote_payload_hex)))).toBe(c.quote_id);
    for (const r of receipts.receipts) expect(toHex(portableSha256(hex(r.payload_hex)))).toBe(r.hash);
    expect(toHex(portableSha256(nobleEd25519.publicKeyOf(hex(receipts.exchange_seed_hex)))).slice(0, 16)).toBe(receipts.key_id);
    expect(keyIdOf(nobleEd25519.publicKeyOf(hex(receipts.exchange_seed_hex)))).toBe(receipts.key_id);
  });

  it('returns plain Uint8Array whichever implementation answers', () => {
    expect(sha256(new Uint8Array(1)).constructor).toBe(Uint8Array);
    expect(new Ed25519Signer(new Uint8Array(32), nodeEd25519).sign(new Uint8Array(1)).constructor).toBe(Uint8Array);
  });
});
