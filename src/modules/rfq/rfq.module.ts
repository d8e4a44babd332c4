import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { InstrumentsModule } from '../instruments/instruments.module';

@Module({ imports: [AccountsModule, InstrumentsModule], providers: [], exports: [] })
export class RfqModule {}
