/**
 * The JSON-RPC contract of the trading WebSocket as plain data: the methods (methods.ts), the
 * views their results and events carry (views.ts), the error codes and the enumerations. No Node
 * built-ins: the console loads it in a browser. The params builders stay inside the contract
 * (declarations are written here); their types are exported for the server's validator.
 */
export * from './declaration';
export * from './enums';
export * from './errors';
export * from './events';
export type { FromSchema } from './from-schema';
export { type JsonSchema, inlineSchemaOf, objectSchemaOf, ref } from './json-schema';
export * from './methods';
export { MAKER_QUOTE_STATES, type MakerQuoteState, MAX_QUOTES_PAGE, DEFAULT_QUOTES_PAGE } from './methods-reconcile';
export type * from './query-rows';
export * from './route-declaration';
export { BALANCE_ROW, RFQ_FILL_ROW, RFQ_POSITION_ROW } from './routes-query';
export * from './routes';
export { type Fault, type Node, type ObjectNode, type Prop, type WireOf, camel } from './params';
export * from './views';
