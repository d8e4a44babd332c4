import { Module } from '@nestjs/common';
import { InstrumentsModule } from '../instruments/instruments.module';
import { MarketDataService } from './market-data.service';
import { MarketRpc } from './market.rpc';

@Module({ imports: [InstrumentsModule], providers: [MarketDataService, MarketRpc], exports: [MarketDataService] })
export class MarketDataModule {}
