import { ROUTES, type RouteName } from '@legwork/protocol';

/** A route declared in `@legwork/protocol`, as the console calls it: its method and path are the declaration's. */
const declared = <R extends RouteName>(name: R) => [ROUTES[name].method, ROUTES[name].path] as const;

/**
 * Every HTTP route the console calls, as the OpenAPI document names it (method and path
 * template). The console calls nothing else (api.ts takes only these names), and the console
 * test checks each one against /openapi.json.
 */
export const ENDPOINTS = {
  health: declared('operations.health'),
  overview: declared('admin.overview'),
  instruments: declared('public.instruments'),
  marketDataAges: declared('admin.market-data-ages'),
  postMarketData: declared('admin.market-data'),
  createInstruments: declared('admin.create-instruments'),
  pause: declared('admin.pause-by-expiration'),
  resume: declared('admin.resume-by-expiration'),
  settle: declared('admin.settle-expiration'),
  accountSearch: declared('admin.account-search'),
  account: declared('admin.account'),
  createAccount: declared('admin.create-account'),
  setRoles: declared('admin.set-roles'),
  deposit: declared('admin.deposit'),
  withdraw: declared('admin.withdraw'),
  revokeSessions: declared('admin.revoke-sessions'),
  rfqPositions: declared('query.rfq-positions'),
  rfqFills: declared('query.rfq-fills'),
  rfqs: declared('admin.rfqs'),
  rfqEvents: declared('admin.rfq-events'),
  revert: declared('admin.revert'),
  nonce: declared('auth.nonce'),
  session: declared('auth.open-session'),
  risk: declared('admin.risk'),
  journal: declared('exchange.journal'),
  keys: declared('exchange.keys'),
  audit: declared('admin.audit'),
  makerLimits: declared('admin.maker-limits'),
  setMakerLimits: declared('admin.set-maker-limits'),
} as const satisfies Record<string, readonly ['GET' | 'POST' | 'PUT', string]>;

export type EndpointName = keyof typeof ENDPOINTS;
