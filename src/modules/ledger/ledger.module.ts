import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BalancesService } from './balances.service';

@Module({ imports: [AccountsModule], providers: [BalancesService], exports: [BalancesService] })
export class LedgerModule {}
