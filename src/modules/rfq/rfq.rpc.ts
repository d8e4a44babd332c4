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
import type { Channel } from '../../common/broadcast/notifier';
import { type EventSource, SinceOutOfRange } from '../gateway/event-stream';
import { AccountEventsService } from './account-events.service';
import { accountEventData } from './domain/account-event';
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
    private readonly events: AccountEventsService,
  ) {}

  /** Subscribes the connection to `channel` through the account's event stream (design.md 13). */
  private async subscribeStream(channel: Channel, params: Params, context: RpcContext) {
    const { since } = parseSubscribeParams(params);
    const accountId = rfqCaller(context).accountId;
    const source: EventSource = {
      bounds: () => this.events.bounds(accountId),
      range: async (after, upTo, limit) =>
        (await this.events.range(accountId, after, upTo, limit)).map((e) => ({
          accountSeq: e.accountSeq,
          channel: e.channel,
          data: accountEventData(e.channel, e.record, e.accountSeq) ?? { event: e.record.state, account_seq: e.accountSeq },
        })),
    };
    try {
      const latest = await context.session.openStream(channel, since, source);
      return { channel, subscribed: true, account_seq: latest };
    } catch (error) {
      if (error instanceof SinceOutOfRange) throw new RfqError('RFQ_VALUE_OUT_OF_RANGE', error.message);
      throw error;
    }
  }

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
    return this.subscribeStream('rfq', params, context);
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
    return this.subscribeStream('rfq_maker', params, context);
  }
}
