import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { parseListParams } from '../instruments/domain/inputs';
import { JsonText } from '../gateway/json-rpc';
import { RpcMethod } from '../gateway/rpc-method';
import { MarketDataService } from './market-data.service';

/** The public market reads of the trading WebSocket (design.md section 4). */
@Injectable()
export class MarketRpc {
  constructor(
    private readonly market: MarketDataService,
    private readonly clock: Clock,
  ) {}

  /** The config's JSON text, made once per config object (the service keeps one until an index price changes). */
  private configText: { config: object; text: JsonText } | null = null;

  @RpcMethod('public/get_market_config', { kind: 'public' })
  getMarketConfig(params: Record<string, unknown>): JsonText {
    const extra = Object.keys(params)[0];
    if (extra !== undefined) throw new AppError('INVALID_PARAMS', `unknown param ${extra}`);
    const config = this.market.marketConfig();
    if (this.configText?.config !== config) this.configText = { config, text: new JsonText(JSON.stringify(config)) };
    return this.configText.text;
  }

  /** params `{ asset?, expiry?, include_settled? }`; default: open instruments of every asset. */
  @RpcMethod('public/get_instruments', { kind: 'public' })
  getInstruments(params: Record<string, unknown>) {
    return { instruments: this.market.instrumentsWithMarks(parseListParams(params), this.clock.now()) };
  }
}
