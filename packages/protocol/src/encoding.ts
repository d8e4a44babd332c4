/**
 * Bytes to text and back on plain Uint8Array, so the package runs where Node's Buffer does not
 * (a browser). Each decoder is strict: it returns null for anything but the one canonical text.
 */

const HEX_DIGITS = '0123456789abcdef';
const HEX_OF_BYTE = Array.from({ length: 256 }, (_, b) => HEX_DIGITS[b >> 4] + HEX_DIGITS[b & 15]);
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Value of each character code in the standard base64 alphabet, -1 for any other. */
const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64_ALPHABET.length; i++) BASE64_VALUE[BASE64_ALPHABET.charCodeAt(i)] = i;

/** Lowercase hex of the bytes. */
export function toHex(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += HEX_OF_BYTE[bytes[i]];
  return text;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  return -1;
}

/** The bytes of an even-length lowercase hex text; null for anything else (uppercase included). */
export function fromHex(text: string): Uint8Array | null {
  if (text.length % 2 !== 0) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(text.charCodeAt(2 * i));
    const low = hexValue(text.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return null;
    out[i] = (high << 4) | low;
  }
  return out;
}

/** Padded standard base64 of the bytes. */
export function toBase64(bytes: Uint8Array): string {
  let text = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    text += BASE64_ALPHABET[n >> 18] + BASE64_ALPHABET[(n >> 12) & 63] + BASE64_ALPHABET[(n >> 6) & 63] + BASE64_ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    text += BASE64_ALPHABET[n >> 18] + BASE64_ALPHABET[(n >> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    text += BASE64_ALPHABET[n >> 18] + BASE64_ALPHABET[(n >> 12) & 63] + BASE64_ALPHABET[(n >> 6) & 63] + '=';
  }
  return text;
}

function base64Value(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? BASE64_VALUE[code] : -1;
}

/**
 * The bytes of canonical padded standard base64: length a multiple of 4, only the alphabet, `=`
 * only as the padding, and the unused low bits of the last character zero (so that each byte
 * string has exactly one text). null for anything else.
 */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const a = base64Value(text, i);
    const b = base64Value(text, i + 1);
    const c = last && padding === 2 ? 0 : base64Value(text, i + 2);
    const d = last && padding >= 1 ? 0 : base64Value(text, i + 3);
    if ((a | b | c | d) < 0) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
    if (last && ((padding === 2 && (b & 15) !== 0) || (padding === 1 && (c & 3) !== 0))) return null;
  }
  return out;
}

/** The bytes of printable or plain ASCII text (each character one byte); throws for a character above 0x7f. */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new Error(`${JSON.stringify(text)} is not ASCII`);
    out[i] = code;
  }
  return out;
}

/** ASCII text of the bytes (each byte one character). */
export function asciiText(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

/** The parts one after the other in one new array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Same length and same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
