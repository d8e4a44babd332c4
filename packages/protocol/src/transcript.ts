import { utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson } from './canonical-json';
import { verifyEd25519 } from './ed25519';
import { equalBytes, fromBase64, toHex } from './encoding';
import { keyIdOf } from './receipt';
import type { ExchangeKeyInfo } from './receipt-check';
import { sha256 } from './sha256';
import { parseWallet } from './wallet';

/**
 * The signed RFQ transcript (docs/spec/design.md section 18): when a competitive RFQ ends its
 * competition, the exchange signs every quote the RFQ received and how each ended, so the taker
 * holds a proof of what it was offered (best execution) that anyone can check with the exchange's
 * public key alone. The server builds the payload with {@link transcriptPayload}; a client checks
 * a saved `rfq.transcript` result with {@link verifyTranscript}. Proven by vectors/transcripts.json.
 */

/** How a quote of a competitive RFQ ended. */
export type TranscriptEnd = 'accepted' | 'traded_away' | 'replaced' | 'cancelled' | 'expired';

/** One quote the RFQ received, in the order received. Decimals are section 1's canonical strings. */
export interface TranscriptQuote {
  /** 64 lowercase hex characters. */
  quote_id: string;
  /** The maker's wallet (base58). */
  maker: string;
  /** u64 as a decimal string. */
  quote_nonce: string;
  bid: string;
  ask: string;
  /** Unix seconds. */
  issued_at: number;
  /** Unix seconds. */
  expires_at: number;
  received_at_ms: number;
  ended_at_ms: number;
  end: TranscriptEnd;
}

/** The accept that ended the competition. */
export interface TranscriptAccepted {
  quote_id: string;
  side: 'buy' | 'sell';
  /** The accepted side's package price. */
  price: string;
  at_ms: number;
  /** The accepted price was the best live price on its side at that moment. */
  best: boolean;
}

/** The object the exchange signs, exactly as section 18 lists it. */
export interface RfqTranscript {
  kind: 'legwork.rfq_transcript';
  version: 1;
  service: string;
  /** 32 lowercase hex characters. */
  rfq_id: string;
  legs: Array<{ instrument: string; quantity: string }>;
  /** Unix seconds. */
  created_at: number;
  closed_at_ms: number;
  /** The taker's panel in the order given, or null (every quoter). */
  makers: string[] | null;
  quotes: TranscriptQuote[];
  accepted: TranscriptAccepted | null;
}

/** The result of `rfq.transcript`. */
export interface SignedTranscript {
  transcript: RfqTranscript;
  /** Base64 of {@link transcriptPayload}. */
  payload: string;
  /** Hex SHA-256 of the payload. */
  hash: string;
  /** Section 14's key_id of the exchange key that signed it. */
  key_id: string;
  /** Base64 ed25519 signature of the payload. */
  signature: string;
}

export const TRANSCRIPT_KIND = 'legwork.rfq_transcript';
export const TRANSCRIPT_VERSION = 1;

/** The UTF-8 bytes of the transcript as RFC 8785 canonical JSON: what the exchange hashes and signs. */
export function transcriptPayload(transcript: RfqTranscript): Uint8Array {
  return utf8ToBytes(canonicalJson(transcript));
}

/** SHA-256 of the payload (the transcript's `hash`, in hex). */
export function transcriptHash(payload: Uint8Array): string {
  return toHex(sha256(payload));
}

/** Which check a signed transcript failed, in the order they run. */
export type TranscriptFault =
  /** The object is not a legwork.rfq_transcript of version 1, or has no canonical JSON form. */
  | 'transcript'
  /** `payload` is not canonical base64 of the transcript's canonical bytes. */
  | 'payload'
  /** `hash` is not the SHA-256 of the payload. */
  | 'hash'
  /** `key_id` is not the exchange key's (or none of the exchange's keys). */
  | 'key_id'
  /** The signature does not verify with the exchange key. */
  | 'signature';

export type TranscriptCheck = { ok: true; transcript: RfqTranscript; hash: string; key_id: string } | { ok: false; fault: TranscriptFault; problem: string };

/** The exchange key: its public key (bytes or base58), or `GET /v1/exchange/keys` (picked by key_id). */
export type TranscriptKey = Uint8Array | string | readonly ExchangeKeyInfo[];

const fail = (fault: TranscriptFault, problem: string): TranscriptCheck => ({ ok: false, fault, problem });

/** The public key the transcript names, or why none fits. */
function keyFor(key: TranscriptKey, keyId: string): Uint8Array | string {
  if (typeof key !== 'string' && !(key instanceof Uint8Array)) {
    const info = key.find((k) => k.key_id === keyId);
    if (!info) return `key ${keyId} is not one of the exchange's keys`;
    key = info.public_key;
  }
  try {
    const publicKey = typeof key === 'string' ? parseWallet(key) : key;
    return keyIdOf(publicKey) === keyId ? publicKey : `key_id ${keyId} is not the exchange key's (${keyIdOf(publicKey)})`;
  } catch (error) {
    return `the exchange key is not a public key: ${(error as Error).message}`;
  }
}

/** The canonical bytes of the object, or why it has none. */
function canonicalBytes(transcript: unknown): Uint8Array | string {
  const t = transcript as Partial<RfqTranscript> | null;
  if (typeof t !== 'object' || t === null || Array.isArray(t)) return 'the transcript is not an object';
  if (t.kind !== TRANSCRIPT_KIND || t.version !== TRANSCRIPT_VERSION) return `not a ${TRANSCRIPT_KIND} of version ${TRANSCRIPT_VERSION}`;
  try {
    return transcriptPayload(t as RfqTranscript);
  } catch (error) {
    return `the transcript has no canonical JSON form: ${(error as Error).message}`;
  }
}

/**
 * Checks a signed transcript (an `rfq.transcript` result) against the exchange key: the payload
 * is exactly the canonical bytes of `transcript` (so what is read is what was signed), `hash` is
 * its SHA-256, `key_id` is the key's, and the ed25519 signature verifies. Never throws: the
 * first check that fails, by name, or the transcript.
 */
export function verifyTranscript(signed: SignedTranscript, exchangeKey: TranscriptKey): TranscriptCheck {
  if (typeof signed !== 'object' || signed === null) return fail('transcript', 'not a signed transcript');
  const expected = canonicalBytes(signed.transcript);
  if (typeof expected === 'string') return fail('transcript', expected);
  const payload = typeof signed.payload === 'string' ? fromBase64(signed.payload) : null;
  if (!payload) return fail('payload', 'payload is not canonical base64');
  if (!equalBytes(payload, expected)) return fail('payload', 'payload is not the canonical JSON of the transcript');
  if (signed.hash !== transcriptHash(payload)) return fail('hash', 'hash is not the SHA-256 of the payload');
  const publicKey = keyFor(exchangeKey, String(signed.key_id));
  if (typeof publicKey === 'string') return fail('key_id', publicKey);
  const signature = typeof signed.signature === 'string' ? fromBase64(signed.signature) : null;
  if (!signature || !verifyEd25519(publicKey, payload, signature)) return fail('signature', 'signature does not verify with the exchange key');
  return { ok: true, transcript: signed.transcript, hash: signed.hash, key_id: signed.key_id };
}
