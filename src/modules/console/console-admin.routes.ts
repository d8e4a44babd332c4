import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import type { RfqState } from '../rfq/domain/rfq-state';
import { ConsoleReadsService } from './console-reads.service';

/** Admin reads the operator console polls (docs/console.md; `CONSOLE_ROUTES` of `@legwork/protocol`): admin:read like every admin GET. */
@Injectable()
export class ConsoleAdminRoutes {
  constructor(
    private readonly reads: ConsoleReadsService,
    private readonly clock: Clock,
  ) {}

  @HttpRoute('admin.overview')
  overview(): Promise<RouteResult<'admin.overview'>> {
    return this.reads.overview(this.clock.now());
  }

  @HttpRoute('admin.rfqs')
  async rfqs({ query }: RouteInput<'admin.rfqs'>): Promise<RouteResult<'admin.rfqs'>> {
    const filter = {
      state: query.state as RfqState | undefined,
      accountId: query.account_id === undefined ? undefined : Number(query.account_id),
      before: query.before,
      limit: query.limit === undefined ? 50 : Number(query.limit),
    };
    return { rfqs: await this.reads.rfqs(filter) };
  }

  @HttpRoute('admin.rfq-events')
  async rfqEvents({ params }: RouteInput<'admin.rfq-events'>): Promise<RouteResult<'admin.rfq-events'>> {
    const events = await this.reads.rfqEvents(params.rfq_id);
    if (!events) throw new AppError('NOT_FOUND', 'no such RFQ');
    return { rfq_id: params.rfq_id, events };
  }

  @HttpRoute('admin.market-data-ages')
  marketData(): Promise<RouteResult<'admin.market-data-ages'>> {
    return this.reads.marketData(this.clock.now());
  }

  @HttpRoute('admin.account-search')
  async accounts({ query }: RouteInput<'admin.account-search'>): Promise<RouteResult<'admin.account-search'>> {
    return { accounts: await this.reads.accountsByWallet(query.wallet) };
  }
}
