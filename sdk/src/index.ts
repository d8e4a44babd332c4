/**
 * `@legwork/sdk`: a TypeScript client for the Legwork options RFQ exchange.
 *
 * - {@link LegworkClient}: the trading WebSocket (JSON-RPC 2.0): sign-in, RFQ methods,
 *   notifications, reconnection with session resume.
 * - {@link LegworkHttp}: sign-in, the query API and the admin commands over HTTP.
 * - {@link Keypair}, {@link signQuote}, {@link signAccept}: wallets and the signed payloads.
 * - {@link parseRfqSigned}, {@link formatRfq}, ...: exact decimals in bigint micro-units.
 *
 * @packageDocumentation
 */
export * from './decimal';
export * from './keys';
export * from './payloads';
export * from './errors';
export * from './http';
export * from './client';
export * from './receipts';
export * from './enums';
export type * from './types';
