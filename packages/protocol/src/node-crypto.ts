/**
 * Node's OpenSSL, found at run time and never imported: `process.getBuiltinModule` (Node 20.16 and
 * later) is how Node documents loading a builtin from code that must also run elsewhere. In Node
 * the package hashes and verifies through it (ed25519 there is 10 to 50 times faster than in
 * JavaScript, and the exchange verifies a signature on every quote and accept); in a browser it is
 * undefined and the portable code of @noble/hashes and @noble/curves serves. A bundler sees no
 * import, so a browser bundle pulls no Node builtin (test/browser-bundle.spec.ts).
 *
 * Only the few calls the package makes are typed here, so that the package compiles without
 * Node's types (Buffer is then a compile error in src, as the lint rule also says).
 */

/** An OpenSSL key (node:crypto KeyObject); opaque here. */
export interface NodeKeyObject {
  readonly asymmetricKeyType?: string;
  export(options: { format: 'der'; type: 'spki' }): Uint8Array;
}

interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(): Uint8Array;
}

interface NodeKeyInput {
  key: Uint8Array;
  format: 'der';
  type: 'spki' | 'pkcs8';
}

/** The part of node:crypto this package uses. */
export interface NodeCrypto {
  createHash(algorithm: 'sha256'): NodeHash;
  createPublicKey(input: NodeKeyInput | NodeKeyObject): NodeKeyObject;
  createPrivateKey(input: NodeKeyInput): NodeKeyObject;
  sign(algorithm: null, data: Uint8Array, key: NodeKeyObject): Uint8Array;
  verify(algorithm: null, data: Uint8Array, key: NodeKeyObject, signature: Uint8Array): boolean;
}

type GetBuiltinModule = (id: string) => unknown;

function findNodeCrypto(): NodeCrypto | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: GetBuiltinModule } }).process;
  if (typeof host?.getBuiltinModule !== 'function') return undefined;
  const crypto = host.getBuiltinModule('node:crypto') as Partial<NodeCrypto> | undefined;
  return typeof crypto?.createHash === 'function' && typeof crypto.verify === 'function' ? (crypto as NodeCrypto) : undefined;
}

/** node:crypto where the package runs in Node (or a runtime that offers it the same way), else undefined. */
export const nodeCrypto: NodeCrypto | undefined = findNodeCrypto();

/**
 * A plain Uint8Array view of the bytes Node returns (a Buffer), without copying: callers get the
 * same type from either implementation, and none comes to lean on Buffer's methods.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
