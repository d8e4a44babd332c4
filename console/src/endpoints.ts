/**
 * Every HTTP route the console calls, as the OpenAPI document names it (method and path
 * template). The console calls nothing else (api.ts takes only these names), and the console
 * test checks each one against /openapi.json.
 */
export const ENDPOINTS = {
  health: ['GET', '/health'],
  overview: ['GET', '/v1/admin/overview'],
  instruments: ['GET', '/v1/instruments'],
  marketDataAges: ['GET', '/v1/admin/market-data'],
  postMarketData: ['POST', '/v1/admin/market-data'],
  createInstruments: ['POST', '/v1/admin/create-instruments'],
  pause: ['POST', '/v1/admin/instruments/pause-by-expiration'],
  resume: ['POST', '/v1/admin/instruments/resume-by-expiration'],
  settle: ['POST', '/v1/admin/instruments/settle-expiration'],
  accountSearch: ['GET', '/v1/admin/accounts'],
  account: ['GET', '/v1/admin/accounts/{account_id}'],
  createAccount: ['POST', '/v1/admin/accounts'],
  setRoles: ['PUT', '/v1/admin/accounts/{account_id}/roles'],
  deposit: ['POST', '/v1/admin/accounts/{account_id}/deposit'],
  withdraw: ['POST', '/v1/admin/accounts/{account_id}/withdraw'],
  revokeSessions: ['POST', '/v1/admin/accounts/{account_id}/revoke-sessions'],
  rfqPositions: ['GET', '/query/rfq-positions'],
  rfqFills: ['GET', '/query/rfq-fills'],
  rfqs: ['GET', '/v1/admin/rfqs'],
  rfqEvents: ['GET', '/v1/admin/rfqs/{rfq_id}/events'],
  revert: ['POST', '/v1/admin/rfq/{rfq_id}/revert'],
  nonce: ['POST', '/v1/auth/nonce'],
  session: ['POST', '/v1/auth/session'],
  risk: ['GET', '/v1/admin/risk'],
  journal: ['GET', '/v1/exchange/journal'],
  keys: ['GET', '/v1/exchange/keys'],
  audit: ['GET', '/v1/admin/audit'],
  makerLimits: ['GET', '/v1/admin/accounts/{account_id}/maker-limits'],
  setMakerLimits: ['PUT', '/v1/admin/accounts/{account_id}/maker-limits'],
} as const satisfies Record<string, readonly ['GET' | 'POST' | 'PUT', string]>;

export type EndpointName = keyof typeof ENDPOINTS;
