import { I64_MAX, U64_MAX } from './decimal';
import { fromHex } from './encoding';

/**
 * Field writers of the fixed-layout signed payloads (docs/spec/design.md section 9): little-endian integers
 * into a zero-filled buffer; each throws an Error naming the field that does not fit.
 */

const I64_MIN = -I64_MAX - 1n;

/** A zero-filled layout of `size` bytes and the view its integers are written through. */
export interface Layout {
  bytes: Uint8Array;
  view: DataView;
}

export function newLayout(size: number): Layout {
  const bytes = new Uint8Array(size);
  return { bytes, view: new DataView(bytes.buffer) };
}

/** A little-endian reader over the bytes (which may be a view into a larger buffer). */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Exactly `size` bytes from `2 * size` lowercase hex characters. */
export function hexBytes(text: string, size: number, field: string): Uint8Array {
  const bytes = typeof text === 'string' && text.length === size * 2 ? fromHex(text) : null;
  if (!bytes) throw new Error(`${field} must be ${size * 2} lowercase hex characters`);
  return bytes;
}

export function putBytes(out: Layout, offset: number, bytes: Uint8Array, size: number, field: string): void {
  if (bytes?.length !== size) throw new Error(`${field} must be ${size} bytes, got ${bytes?.length}`);
  out.bytes.set(bytes, offset);
}

export function putI64(out: Layout, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < I64_MIN || value > I64_MAX) throw new Error(`${field} is not a signed 64-bit integer`);
  out.view.setBigInt64(offset, value, true);
}

export function putU64(out: Layout, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw new Error(`${field} is not an unsigned 64-bit integer`);
  out.view.setBigUint64(offset, value, true);
}

/** Unix seconds held in a JS number, written as i64. */
export function putSeconds(out: Layout, offset: number, value: number, field: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${field} must be an integer number of seconds`);
  out.view.setBigInt64(offset, BigInt(value), true);
}

/** ASCII the caller has checked, written byte by byte (the layout is already zero after it). */
export function putCheckedAscii(out: Layout, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) out.bytes[offset + i] = text.charCodeAt(i);
}

/** Printable ASCII, 1 to `size` bytes, zero padded (the buffer is already zero). */
export function putAscii(out: Layout, offset: number, text: string, size: number, field: string): void {
  if (typeof text !== 'string' || !/^[\x21-\x7e]+$/.test(text) || text.length > size) {
    throw new Error(`${field} must be 1 to ${size} printable ASCII characters`);
  }
  putCheckedAscii(out, offset, text);
}
