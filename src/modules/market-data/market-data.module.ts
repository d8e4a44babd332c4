import { Module } from '@nestjs/common';
import { InstrumentsModule } from '../instruments/instruments.module';
import { MarketDataRepository } from './market-data.repository';
import { MarketDataService } from './market-data.service';
import { MarketRpc } from './market.rpc';

/** Index prices and IVs (`index_prices`, `instrument_ivs`: through MarketDataRepository only) and the marks made of them. */
@Module({ imports: [InstrumentsModule], providers: [MarketDataRepository, MarketDataService, MarketRpc], exports: [MarketDataService] })
export class MarketDataModule {}
