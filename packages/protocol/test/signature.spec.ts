import bs58 from 'bs58';
import { loadVector } from '../../../test/vectors';
import { decodeBase58Signature, decodeCanonicalBase64Signature, encodeBase64Signature } from '../src';

const signin = loadVector('signin.json');
const payloads = loadVector('payloads.json');

describe('canonical base64 signatures (vectors/payloads.json)', () => {
  const texts: string[] = payloads.cases.flatMap((c: any) => [c.maker_signature, ...c.accepts.map((a: any) => a.taker_signature)]);

  it.each(texts.map((t) => [t]))('decodes and re-encodes %s', (text) => {
    const bytes = decodeCanonicalBase64Signature(text);
    expect(bytes).not.toBeNull();
    expect(bytes!.length).toBe(64);
    expect(encodeBase64Signature(bytes!)).toBe(text);
  });

  it.each(payloads.non_canonical_base64.map((v: any) => [v.text, v.why]) as [string, string][])('refuses %j (%s)', (text) => {
    expect(decodeCanonicalBase64Signature(text)).toBeNull();
  });

  it('refuses non-zero unused bits, other lengths and non-strings', () => {
    const text: string = texts[0];
    // The 86th character carries 4 unused low bits: "A" -> "B" sets one, Buffer would ignore it.
    const last = text[85] === 'A' ? 'B' : 'A';
    expect(decodeCanonicalBase64Signature(text.slice(0, 85) + last + '==')).toBeNull();
    expect(decodeCanonicalBase64Signature(Buffer.alloc(65).toString('base64'))).toBeNull();
    expect(decodeCanonicalBase64Signature(text + '\n')).toBeNull();
    expect(decodeCanonicalBase64Signature(null)).toBeNull();
    expect(decodeCanonicalBase64Signature(64)).toBeNull();
  });

  it('encodes only 64 bytes', () => {
    expect(() => encodeBase64Signature(new Uint8Array(63))).toThrow();
  });
});

describe('base58 sign-in signatures (vectors/signin.json)', () => {
  it('decodes the vector signature to 64 bytes', () => {
    const bytes = decodeBase58Signature(signin.signature_base58);
    expect(bytes).not.toBeNull();
    expect(bs58.encode(bytes!)).toBe(signin.signature_base58);
  });

  it('refuses other lengths, foreign characters and non-strings', () => {
    expect(decodeBase58Signature(bs58.encode(new Uint8Array(63).fill(7)))).toBeNull();
    expect(decodeBase58Signature(bs58.encode(new Uint8Array(65).fill(7)))).toBeNull();
    expect(decodeBase58Signature('1' + signin.signature_base58)).toBeNull();
    expect(decodeBase58Signature(signin.signature_base58 + '0')).toBeNull();
    expect(decodeBase58Signature(' ' + signin.signature_base58)).toBeNull();
    expect(decodeBase58Signature('')).toBeNull();
    expect(decodeBase58Signature(undefined)).toBeNull();
    expect(decodeBase58Signature('z'.repeat(10_000))).toBeNull();
  });
});
