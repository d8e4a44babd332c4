import { Injectable } from '@nestjs/common';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../gateway/rpc-method';
import { AcceptService } from './accept.service';
import { parseAcceptParams } from './domain/accept-params';

/** rfq.accept (interface.md 4.2): access declared, params parsed, one service call. */
@Injectable()
export class AcceptRpc {
  constructor(private readonly accepts: AcceptService) {}

  @RpcMethod('rfq.accept', { kind: 'account', role: 'taker' })
  accept(params: Record<string, unknown>, context: RpcContext) {
    const command = parseAcceptParams(params);
    const principal = context.principal;
    if (!principal || principal.accountId === null || !principal.wallet) throw new RfqError('RFQ_WRONG_ROLE', 'sign in with an account first');
    return this.accepts.accept({ accountId: principal.accountId, wallet: principal.wallet }, command);
  }
}
