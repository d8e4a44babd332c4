import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { InstrumentsModule } from '../instruments/instruments.module';
import { LedgerModule } from '../ledger/ledger.module';
import { MarketDataModule } from '../market-data/market-data.module';

/** The /v1/admin/* routes: thin controllers over the owning modules' services. */
@Module({ imports: [AccountsModule, InstrumentsModule, MarketDataModule, LedgerModule], controllers: [] })
export class AdminModule {}
