import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { InstrumentsModule } from '../instruments/instruments.module';
import { JournalModule } from '../journal/journal.module';
import { MarketDataModule } from '../market-data/market-data.module';
import { RfqModule } from '../rfq/rfq.module';
import { AcceptRpc } from './accept.rpc';
import { AcceptService } from './accept.service';
import { BalancesService } from './balances.service';
import { FillReadsService } from './fill-reads.service';
import { FillReadsRepository } from './fill.reads.repository';
import { FillService } from './fill.service';
import { LedgerReads } from './ledger-reads.service';
import { LedgerSweep } from './ledger-sweep';
import { LedgerStore } from './ledger.store';
import { RevertService } from './revert.service';
import { RiskReportService } from './risk-report.service';
import { RiskService } from './risk.service';
import { SettlementService } from './settlement.service';

/**
 * Balances and the fill ledger: rfq.accept, the fill job, revert, settlement of expirations,
 * positions, and the read models of the query API.
 */
@Module({
  imports: [AccountsModule, AuthModule, InstrumentsModule, JournalModule, MarketDataModule, RfqModule],
  providers: [BalancesService, FillReadsRepository, FillReadsService, LedgerStore, RiskService, AcceptService, AcceptRpc, FillService, RevertService, SettlementService, LedgerSweep, LedgerReads, RiskReportService],
  exports: [BalancesService, FillReadsService, RevertService, SettlementService, LedgerReads, RiskReportService],
})
export class LedgerModule {}
