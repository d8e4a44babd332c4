import type { MethodCommand } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { JsonText } from '../../common/rpc/json-text';
import { RpcMethod } from '../../common/rpc/rpc-method';
import { type MarketConfig, MarketDataService } from './market-data.service';

/** The public market reads of the trading WebSocket (docs/spec/design.md section 4). */
@Injectable()
export class MarketRpc {
  constructor(
    private readonly market: MarketDataService,
    private readonly clock: Clock,
  ) {}

  /** The config's JSON text, made once per config object (the service keeps one until an index price changes). */
  private configText: { config: object; text: JsonText<MarketConfig> } | null = null;

  @RpcMethod('public/get_market_config')
  getMarketConfig(): JsonText<MarketConfig> {
    const config = this.market.marketConfig();
    if (this.configText?.config !== config) this.configText = { config, text: JsonText.of<MarketConfig>(config) };
    return this.configText.text;
  }

  /** params `{ asset?, expiry?, include_settled? }`; default: open instruments of every asset. */
  @RpcMethod('public/get_instruments')
  async getInstruments(filter: MethodCommand<'public/get_instruments'>) {
    return { instruments: await this.market.instrumentsWithMarks(filter, this.clock.now()) };
  }

  /** The server's clock, for clients to measure their offset before signing timestamps. */
  @RpcMethod('public/get_time')
  getTime() {
    return { time_ms: this.clock.nowMs() };
  }
}
