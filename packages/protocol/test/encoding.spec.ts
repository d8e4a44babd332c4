import { randomBytes } from 'node:crypto';
import { concatBytes, equalBytes, fromBase64, fromHex, toBase64, toHex } from '../src';

/** The package's own hex and base64 (it has no Buffer) against Node's, which the server uses. */
describe('hex and base64 on Uint8Array', () => {
  const samples = Array.from({ length: 70 }, (_, n) => Uint8Array.from(randomBytes(n)));

  it('encode as Buffer does and decode back, for every length up to 69', () => {
    for (const bytes of samples) {
      expect(toHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(equalBytes(fromHex(toHex(bytes))!, bytes)).toBe(true);
      expect(equalBytes(fromBase64(toBase64(bytes))!, bytes)).toBe(true);
    }
  });

  it('refuse hex that is uppercase, odd, or not hex', () => {
    for (const text of ['A0', 'abc', '0g', ' 00', '0x00']) expect(fromHex(text)).toBeNull();
    expect(fromHex('')).toEqual(new Uint8Array(0));
  });

  it('refuse base64 that is not the one canonical text (Buffer would take each of these)', () => {
    for (const text of ['QQ', 'QQ=', 'QR==', 'QUI=QUI=', 'QUJ=', 'QU J', 'QUI-', 'QUI_', '====', 'Q===', 'QUJD\n', 'QUJD '])
      expect(fromBase64(text)).toBeNull();
    expect(fromBase64('QQ==')).toEqual(Uint8Array.of(0x41));
    expect(fromBase64('QUI=')).toEqual(Uint8Array.of(0x41, 0x42));
    expect(fromBase64('')).toEqual(new Uint8Array(0));
  });

  it('concatenates and compares', () => {
    expect(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))).toEqual(Uint8Array.of(1, 2, 3));
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1))).toBe(false);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
  });
});
