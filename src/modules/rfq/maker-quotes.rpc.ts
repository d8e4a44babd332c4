import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { type MakerQuoteItem, MakerQuotesRepository } from './maker-quotes.repository';
import { rfqCaller } from './rfq.rpc';

interface MakerQuotesParams {
  state: 'live' | 'all';
  after: string | null;
  limit: number;
}

/** rfq.maker.quotes (docs/spec/design.md section 19): a maker's own quotes, newest first, to reconcile a lost reply. */
@Injectable()
export class MakerQuotesRpc {
  constructor(
    private readonly quotes: MakerQuotesRepository,
    private readonly clock: Clock,
  ) {}

  /** One more row than the page is read: `next_cursor` only when more remain. */
  @RpcMethod('rfq.maker.quotes')
  async list(params: MakerQuotesParams, context: RpcContext): Promise<{ items: MakerQuoteItem[]; next_cursor?: string }> {
    const { accountId } = rfqCaller(context);
    const after = params.after === null ? null : await this.quotes.place(accountId, params.after);
    if (params.after !== null && !after) throw new RfqError('RFQ_NOT_FOUND', `no quote ${params.after} of this maker`, { reason: 'cursor_not_found' });
    const rows = await this.quotes.page({ makerAccountId: accountId, live: params.state === 'live', after, limit: params.limit + 1, now: this.clock.now() });
    const items = rows.slice(0, params.limit);
    return rows.length > params.limit ? { items, next_cursor: items[items.length - 1].quote_id } : { items };
  }
}
