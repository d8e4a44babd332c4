import { I64_MAX, U64_MAX } from './decimal';

/**
 * Field writers of the fixed-layout signed payloads (docs/spec/design.md section 9): little-endian integers
 * into a zero-filled buffer; each throws an Error naming the field that does not fit.
 */

const I64_MIN = -I64_MAX - 1n;

/** Exactly `size` bytes from `2 * size` lowercase hex characters. */
export function hexBytes(text: string, size: number, field: string): Buffer {
  if (typeof text !== 'string' || !new RegExp(`^[0-9a-f]{${size * 2}}$`).test(text)) {
    throw new Error(`${field} must be ${size * 2} lowercase hex characters`);
  }
  return Buffer.from(text, 'hex');
}

export function putBytes(out: Buffer, offset: number, bytes: Uint8Array, size: number, field: string): void {
  if (bytes?.length !== size) throw new Error(`${field} must be ${size} bytes, got ${bytes?.length}`);
  out.set(bytes, offset);
}

export function putI64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < I64_MIN || value > I64_MAX) throw new Error(`${field} is not a signed 64-bit integer`);
  out.writeBigInt64LE(value, offset);
}

export function putU64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw new Error(`${field} is not an unsigned 64-bit integer`);
  out.writeBigUInt64LE(value, offset);
}

/** Unix seconds held in a JS number, written as i64. */
export function putSeconds(out: Buffer, offset: number, value: number, field: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${field} must be an integer number of seconds`);
  out.writeBigInt64LE(BigInt(value), offset);
}

/** Printable ASCII, 1 to `size` bytes, zero padded (the buffer is already zero). */
export function putAscii(out: Buffer, offset: number, text: string, size: number, field: string): void {
  if (typeof text !== 'string' || !/^[\x21-\x7e]+$/.test(text) || text.length > size) {
    throw new Error(`${field} must be 1 to ${size} printable ASCII characters`);
  }
  out.write(text, offset, 'ascii');
}
