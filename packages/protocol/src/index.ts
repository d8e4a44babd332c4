/**
 * `@legwork/protocol`: the wire formats of Legwork that the server, the SDK, the tools and the
 * operator console share, so each is written and proven (by the contract's vectors) once: exact
 * decimals in bigint micro-units, wallets, signature texts, ed25519 and SHA-256, the sign-in
 * message, the signed quote and accept payloads, the fill receipts and the signed RFQ transcripts,
 * and their checks.
 *
 * It runs in Node and in a browser: plain Uint8Array, no Node import. In Node it hashes and
 * signs through OpenSSL (node:crypto, found at run time), elsewhere through the audited
 * @noble/hashes and @noble/curves; no framework.
 *
 * @packageDocumentation
 */
export * from './decimal';
export * from './wallet';
export * from './signature';
export * from './ed25519';
export * from './signin';
export { hexBytes } from './bytes';
export { toHex, fromHex, toBase64, fromBase64, concatBytes, equalBytes } from './encoding';
export { sha256, portableSha256 } from './sha256';
export * from './quote-payload';
export * from './accept-payload';
export * from './receipt';
export * from './receipt-check';
export * from './audit-chain';
export * from './transcript';
export * from './contract';
