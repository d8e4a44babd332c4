import { RfqError } from '../errors/app-error';
import type { RpcContext } from './rpc-method';

/** The caller of an rfq.* method: a signed-in account. */
export interface RfqCaller {
  accountId: number;
  wallet: string;
}

/**
 * The signed-in account of an `account`-access rfq.* method (the dispatcher enforced the access
 * already). Here, below the modules, because the RFQ's and the maker limits' handlers both ask it.
 */
export function rfqCaller(context: RpcContext): RfqCaller {
  const principal = context.principal;
  if (!principal || principal.accountId === null || !principal.wallet)
    throw new RfqError('RFQ_WRONG_ROLE', 'sign in with an account first', { reason: 'not_signed_in' });
  return { accountId: principal.accountId, wallet: principal.wallet };
}
