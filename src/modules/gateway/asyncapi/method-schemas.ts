import { AUTH_METHODS } from '../../auth/auth.schemas';
import { ACCEPT_METHOD } from '../../ledger/accept.schemas';
import { MARKET_METHODS } from '../../market-data/market.schemas';
import { MAKER_LIMITS_METHODS } from '../../rfq/maker-limits.schemas';
import { RFQ_METHODS } from '../../rfq/rfq.schemas';
import type { RpcDeclaration, RpcMethodName } from '../rpc-method';

/**
 * Every method of RPC_METHODS with the declaration its handler is decorated with (declared beside
 * the handler, in `<module>/*.schemas.ts`): the type makes a missing entry a compile error, the
 * registry refuses a handler whose declaration is not this one, and /asyncapi.json is written
 * from it, so the document describes what the validator checks.
 */
export const METHOD_SCHEMAS: Record<RpcMethodName, RpcDeclaration<unknown>> = {
  ...AUTH_METHODS,
  ...MARKET_METHODS,
  ...RFQ_METHODS,
  ...MAKER_LIMITS_METHODS,
  'rfq.accept': ACCEPT_METHOD,
};
