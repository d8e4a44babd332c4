import bs58 from 'bs58';
import { fromBase64, toBase64 } from './encoding';

/**
 * Signature texts (docs/spec/design.md sections 3 and 9). Every decoder returns null for anything but the
 * one canonical text of exactly 64 bytes.
 */

/** 64 bytes in padded standard base64: 86 characters then "==". */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** 64 bytes never take more than 88 base58 characters. */
const MAX_BASE58_SIGNATURE_CHARS = 88;

/** Quote and accept signatures: canonical base64 (standard alphabet, padded, 88 characters). */
export function decodeCanonicalBase64Signature(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !BASE64_SIGNATURE.test(text)) return null;
  // fromBase64 also refuses non-zero bits in the last character's unused low bits.
  const bytes = fromBase64(text);
  return bytes?.length === 64 ? bytes : null;
}

/** Sign-in signatures: base58 of exactly 64 bytes, canonical. */
export function decodeBase58Signature(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !BASE58.test(text) || text.length > MAX_BASE58_SIGNATURE_CHARS) return null;
  const bytes = bs58.decodeUnsafe(text);
  if (bytes === undefined || bytes.length !== 64 || bs58.encode(bytes) !== text) return null;
  return bytes;
}

/** Canonical base64 text of a 64-byte signature. */
export function encodeBase64Signature(bytes: Uint8Array): string {
  if (bytes.length !== 64) throw new Error(`a signature is 64 bytes, got ${bytes.length}`);
  return toBase64(bytes);
}
