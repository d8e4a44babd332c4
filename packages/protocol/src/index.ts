/**
 * `@legwork/protocol`: the wire formats of Legwork that the server, the SDK and the tools share,
 * so each is written and proven (by the contract's vectors) once: exact decimals in bigint
 * micro-units, wallets, signature texts, ed25519 through node:crypto, the sign-in message and the
 * signed quote and accept payloads. Node only (node:crypto, Buffer); no framework.
 *
 * @packageDocumentation
 */
export * from './decimal';
export * from './wallet';
export * from './signature';
export * from './ed25519';
export * from './signin';
export { hexBytes } from './bytes';
export * from './quote-payload';
export * from './accept-payload';
export * from './receipt';
export * from './contract';
