/**
 * A Buffer over the same memory as `bytes`, without a copy: `@legwork/protocol` returns plain
 * Uint8Array (it runs in browsers too), while the server's rows and texts take Buffer.
 */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
