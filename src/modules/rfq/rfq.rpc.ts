import type { MethodCommand } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import type { CreateRfqCommand, DeclineCommand, ListRfqsQuery, PollQuery, RespondCommand } from './domain/rfq-params';
import type { Channel } from '../../common/broadcast/notifier';
import { SinceOutOfRange } from '../gateway/event-stream';
import type { EventSource, StreamEvent } from '../../common/rpc/event-source';
import { JsonText } from '../../common/rpc/json-text';
import { ReplayGovernor } from '../gateway/replay-governor';
import { AccountEventsService, type StoredEvent } from './account-events.service';
import { RfqCancelService } from './rfq-cancel.service';
import { accountEventData, protectionEventData, quoteEndEventData } from './domain/account-event';
import { QuoteChecksService } from './quote-checks.service';
import { QuoteService } from './quote.service';
import { RfqBookService } from './rfq-book.service';
import { RfqService } from './rfq.service';
import { rfqCaller } from '../../common/rpc/rfq-caller';

type SubscribeParams = MethodCommand<'rfq.subscribe'>;

/** A stored event as its stream sends it: the data PostgreSQL rendered, or the data of its record, trip or quote's end. */
function streamEvent(e: StoredEvent): StreamEvent {
  const { accountSeq, channel } = e;
  if ('rendered' in e) return { accountSeq, channel, data: new JsonText<Record<string, unknown>>(e.rendered) };
  if (e.record)
    return { accountSeq, channel, data: accountEventData(channel, e.record, accountSeq, e.event) ?? { event: e.record.state, account_seq: accountSeq } };
  if (e.protection) return { accountSeq, channel, data: protectionEventData(e.protection, accountSeq) };
  return { accountSeq, channel, data: quoteEndEventData(e.quoteEnd.event, e.quoteEnd.rfq_id, e.quoteEnd.quote_id, accountSeq) };
}

export { rfqCaller } from '../../common/rpc/rfq-caller';

/** The RFQ methods of the trading WebSocket (docs/spec/interface.md 4.2): access, params declared in packages/protocol/src/contract/methods-rfq.ts, one service call. */
@Injectable()
export class RfqRpc {
  constructor(
    private readonly rfqs: RfqService,
    private readonly quotes: QuoteService,
    private readonly events: AccountEventsService,
    private readonly cancels: RfqCancelService,
    private readonly replays: ReplayGovernor,
    private readonly checks: QuoteChecksService,
    private readonly book: RfqBookService,
  ) {}

  /** Subscribes the connection to `channel` through the account's event stream (docs/spec/design.md 13). */
  private async subscribeStream<C extends Channel>(channel: C, { since }: SubscribeParams, context: RpcContext) {
    const accountId = rfqCaller(context).accountId;
    const source: EventSource = {
      bounds: () => this.events.bounds(accountId),
      range: async (after, upTo, limit) => (await this.events.range(accountId, after, upTo, limit)).map(streamEvent),
      admit: () => this.replays.admit(accountId),
    };
    try {
      const latest = await context.session.openStream(channel, since, source);
      return { channel, subscribed: true as const, account_seq: latest };
    } catch (error) {
      if (error instanceof SinceOutOfRange) throw new RfqError('RFQ_VALUE_OUT_OF_RANGE', error.message, { reason: 'since_out_of_range' });
      throw error;
    }
  }

  @RpcMethod('rfq.create')
  create(params: CreateRfqCommand, context: RpcContext) {
    return this.rfqs.create(rfqCaller(context), params);
  }

  // The taker's cancel (docs/spec/design.md 15).
  @RpcMethod('rfq.cancel')
  cancel(params: { rfqId: string }, context: RpcContext) {
    return this.cancels.cancel(rfqCaller(context), params.rfqId);
  }

  @RpcMethod('rfq.cancel_all')
  cancelAll(_params: Record<string, never>, context: RpcContext) {
    return this.cancels.cancelAll(rfqCaller(context));
  }

  @RpcMethod('rfq.get')
  get(params: { rfqId: string }, context: RpcContext) {
    return this.book.get(rfqCaller(context), params.rfqId);
  }

  @RpcMethod('rfq.list')
  list(params: ListRfqsQuery, context: RpcContext) {
    return this.book.list(rfqCaller(context), params);
  }

  @RpcMethod('rfq.subscribe')
  subscribe(params: SubscribeParams, context: RpcContext) {
    return this.subscribeStream('rfq', params, context);
  }

  @RpcMethod('rfq.maker.poll')
  poll(params: PollQuery, context: RpcContext) {
    return this.book.poll(rfqCaller(context), params);
  }

  @RpcMethod('rfq.maker.respond')
  respond(params: RespondCommand, context: RpcContext) {
    return this.quotes.respond(rfqCaller(context), params);
  }

  @RpcMethod('rfq.maker.check')
  check(params: RespondCommand, context: RpcContext) {
    return this.checks.check(rfqCaller(context), params);
  }

  @RpcMethod('rfq.maker.decline')
  decline(params: DeclineCommand, context: RpcContext) {
    return this.quotes.decline(rfqCaller(context), params);
  }

  @RpcMethod('rfq.maker.subscribe')
  makerSubscribe(params: SubscribeParams, context: RpcContext) {
    return this.subscribeStream('rfq_maker', params, context);
  }
}
