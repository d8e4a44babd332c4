/**
 * UUIDv7 (RFC 9562): 48-bit unix milliseconds, version 7, 74 random bits, variant 10xx; written
 * as 32 lowercase hex characters (the RfqId form). Ids sort by creation time.
 */

const RANDOM_BITS = 74n;
const RANDOM_LIMIT = 1n << RANDOM_BITS;
const MAX_MS = 2 ** 48 - 1;

/** The UUIDv7 of `unixMs` and a 74-bit `random` value, as 32 lowercase hex characters. */
export function uuidV7Hex(unixMs: number, random: bigint): string {
  if (!Number.isSafeInteger(unixMs) || unixMs < 0 || unixMs > MAX_MS) throw new RangeError(`unix milliseconds ${unixMs} do not fit 48 bits`);
  if (random < 0n || random >= RANDOM_LIMIT) throw new RangeError('random must be 74 bits');
  const randA = random >> 62n; // 12 bits
  const randB = random & ((1n << 62n) - 1n); // 62 bits
  const high = (BigInt(unixMs) << 16n) | (0x7n << 12n) | randA;
  const low = (0b10n << 62n) | randB;
  return high.toString(16).padStart(16, '0') + low.toString(16).padStart(16, '0');
}

/** The unix milliseconds of a UUIDv7 in hex form. */
export function uuidV7Time(hex: string): number {
  return Number.parseInt(hex.slice(0, 12), 16);
}

/**
 * Monotonic UUIDv7s (RFC 9562 section 6.2, method 2): within one millisecond, or when the clock
 * steps back, the random field counts up from the last id, so ids of one generator strictly
 * increase. Randomness is a parameter: the caller passes a CSPRNG.
 */
export class UuidV7Generator {
  private lastMs = -1;
  private lastRandom = 0n;

  constructor(private readonly randomBytes: (size: number) => Uint8Array) {}

  next(nowMs: number): string {
    if (nowMs > this.lastMs) {
      this.lastMs = nowMs;
      this.lastRandom = this.fresh();
    } else {
      // Same millisecond (or an earlier clock): count up; a random increment keeps ids unguessable.
      this.lastRandom += 1n + BigInt(this.randomBytes(1)[0]);
      if (this.lastRandom >= RANDOM_LIMIT) {
        this.lastMs += 1;
        this.lastRandom = this.fresh();
      }
    }
    return uuidV7Hex(this.lastMs, this.lastRandom);
  }

  /** 74 random bits with the top one clear, leaving room to count up within a millisecond. */
  private fresh(): bigint {
    const bytes = this.randomBytes(10);
    let value = 0n;
    for (const b of bytes) value = (value << 8n) | BigInt(b);
    return value & ((1n << (RANDOM_BITS - 1n)) - 1n);
  }
}
