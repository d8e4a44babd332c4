import { Injectable } from '@nestjs/common';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../gateway/rpc-method';
import {
  parseCreateParams,
  parseDeclineParams,
  parseGetParams,
  parseListParams,
  parsePollParams,
  parseRespondParams,
  parseSubscribeParams,
} from './domain/rfq-params';
import { QuoteService } from './quote.service';
import { type RfqCaller, RfqService } from './rfq.service';

type Params = Record<string, unknown>;

/** The signed-in account of an `account`-access rfq.* method (the dispatcher enforced the access already). */
export function rfqCaller(context: RpcContext): RfqCaller {
  const principal = context.principal;
  if (!principal || principal.accountId === null || !principal.wallet) throw new RfqError('RFQ_WRONG_ROLE', 'sign in with an account first');
  return { accountId: principal.accountId, wallet: principal.wallet };
}

/** The RFQ methods of the trading WebSocket (interface.md 4.2): access, params, one service call. */
@Injectable()
export class RfqRpc {
  constructor(
    private readonly rfqs: RfqService,
    private readonly quotes: QuoteService,
  ) {}

  @RpcMethod('rfq.create', { kind: 'account', role: 'taker' })
  create(params: Params, context: RpcContext) {
    return this.rfqs.create(rfqCaller(context), parseCreateParams(params));
  }

  @RpcMethod('rfq.get', { kind: 'account' })
  get(params: Params, context: RpcContext) {
    return this.rfqs.get(rfqCaller(context), parseGetParams(params).rfqId);
  }

  @RpcMethod('rfq.list', { kind: 'account' })
  list(params: Params, context: RpcContext) {
    return this.rfqs.list(rfqCaller(context), parseListParams(params));
  }

  @RpcMethod('rfq.subscribe', { kind: 'account' })
  subscribe(params: Params, context: RpcContext) {
    parseSubscribeParams(params);
    context.session.subscribe('rfq');
    return { channel: 'rfq', subscribed: true };
  }

  @RpcMethod('rfq.maker.poll', { kind: 'account', role: 'quoter' })
  poll(params: Params, context: RpcContext) {
    return this.rfqs.poll(rfqCaller(context), parsePollParams(params));
  }

  @RpcMethod('rfq.maker.respond', { kind: 'account', role: 'quoter' })
  respond(params: Params, context: RpcContext) {
    return this.quotes.respond(rfqCaller(context), parseRespondParams(params));
  }

  @RpcMethod('rfq.maker.decline', { kind: 'account', role: 'quoter' })
  decline(params: Params, context: RpcContext) {
    return this.quotes.decline(rfqCaller(context), parseDeclineParams(params));
  }

  @RpcMethod('rfq.maker.subscribe', { kind: 'account', role: 'quoter' })
  makerSubscribe(params: Params, context: RpcContext) {
    parseSubscribeParams(params);
    context.session.subscribe('rfq_maker');
    return { channel: 'rfq_maker', subscribed: true };
  }
}
