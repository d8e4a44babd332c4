import { Module } from '@nestjs/common';
import { InstrumentsModule } from '../instruments/instruments.module';

@Module({ imports: [InstrumentsModule], providers: [], exports: [] })
export class MarketDataModule {}
