import { Injectable } from '@nestjs/common';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { AcceptService } from './accept.service';
import type { AcceptCommand } from './domain/accept-params';

/** rfq.accept (docs/spec/interface.md 4.2): access declared, params parsed by its declaration (packages/protocol/src/contract/methods-rfq.ts), one service call. */
@Injectable()
export class AcceptRpc {
  constructor(private readonly accepts: AcceptService) {}

  @RpcMethod('rfq.accept')
  accept(command: AcceptCommand, context: RpcContext) {
    const principal = context.principal;
    if (!principal || principal.accountId === null || !principal.wallet)
      throw new RfqError('RFQ_WRONG_ROLE', 'sign in with an account first', { reason: 'not_signed_in' });
    return this.accepts.accept({ accountId: principal.accountId, wallet: principal.wallet }, command);
  }
}
