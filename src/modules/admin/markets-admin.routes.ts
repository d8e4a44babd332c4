import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import { InstrumentsService } from '../instruments/instruments.service';
import { RevertService } from '../ledger/revert.service';
import { SettlementService } from '../ledger/settlement.service';
import { MarketDataService } from '../market-data/market-data.service';

/**
 * Admin commands on the markets (`MARKET_ADMIN_ROUTES` of `@legwork/protocol`): instruments and
 * their rounds, market data, settlement and a fill's revert. The services parse the values
 * (decimals as text or JSON numbers, future expirations) with their own messages.
 */
@Injectable()
export class MarketsAdminRoutes {
  constructor(
    private readonly instruments: InstrumentsService,
    private readonly market: MarketDataService,
    private readonly settlement: SettlementService,
    private readonly reverts: RevertService,
  ) {}

  @HttpRoute('admin.create-instruments')
  createInstruments({ body }: RouteInput<'admin.create-instruments'>): Promise<RouteResult<'admin.create-instruments'>> {
    return this.instruments.create(body);
  }

  @HttpRoute('admin.pause-by-expiration')
  pause({ body }: RouteInput<'admin.pause-by-expiration'>): Promise<RouteResult<'admin.pause-by-expiration'>> {
    return this.instruments.pauseByExpiration(body);
  }

  @HttpRoute('admin.resume-by-expiration')
  resume({ body }: RouteInput<'admin.resume-by-expiration'>): Promise<RouteResult<'admin.resume-by-expiration'>> {
    return this.instruments.resumeByExpiration(body);
  }

  @HttpRoute('admin.market-data')
  marketData({ body }: RouteInput<'admin.market-data'>): Promise<RouteResult<'admin.market-data'>> {
    return this.market.update(body);
  }

  @HttpRoute('admin.settle-expiration')
  settle({ body }: RouteInput<'admin.settle-expiration'>): Promise<RouteResult<'admin.settle-expiration'>> {
    return this.settlement.settleExpiration(body);
  }

  /** The path's rfq_id is checked by the declaration (32 lowercase hex characters), as the service checks it. */
  @HttpRoute('admin.revert')
  revert({ params }: RouteInput<'admin.revert'>): Promise<RouteResult<'admin.revert'>> {
    return this.reverts.revert(params.rfq_id);
  }
}
