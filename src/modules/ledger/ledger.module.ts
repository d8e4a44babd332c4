import { Module } from '@nestjs/common';
import { CompetitionModule } from '../competition/competition.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { InstrumentsModule } from '../instruments/instruments.module';
import { JournalModule } from '../journal/journal.module';
import { MarketDataModule } from '../market-data/market-data.module';
import { RfqModule } from '../rfq/rfq.module';
import { AcceptRpc } from './accept.rpc';
import { AcceptChecksService } from './accept-checks.service';
import { AcceptService } from './accept.service';
import { BalanceRepository } from './balance.repository';
import { BalancesService } from './balances.service';
import { CollateralRepriceService } from './collateral-reprice.service';
import { FillReadsService } from './fill-reads.service';
import { FillReadsRepository } from './fill-reads.repository';
import { FillRepository } from './fill.repository';
import { FillRecordService } from './fill-record.service';
import { FillService } from './fill.service';
import { FillTransactionService } from './fill-transaction.service';
import { LedgerReadsService } from './ledger-reads.service';
import { LedgerSweepService } from './ledger-sweep.service';
import { LegPricingService } from './leg-pricing.service';
import { PositionRepository } from './position.repository';
import { RevertService } from './revert.service';
import { RevertTransactionService } from './revert-transaction.service';
import { RevertUndoService } from './revert-undo.service';
import { RiskReportService } from './risk-report.service';
import { SettlementRepository } from './settlement.repository';
import { SettlementPaymentsService } from './settlement-payments.service';
import { SettlementService } from './settlement.service';
import { SettlementTransactionService } from './settlement-transaction.service';

/**
 * Balances and the fill ledger: rfq.accept, the fill job, revert, settlement of expirations,
 * positions, and the read models of the query API. Owns balances and transfers
 * (BalanceRepository), accepts, fills and fill_legs (FillRepository), positions
 * (PositionRepository), settlement_payments (SettlementRepository) and lock_groups (collateral.sql.ts).
 */
@Module({
  imports: [AccountsModule, AuthModule, InstrumentsModule, JournalModule, MarketDataModule, RfqModule, CompetitionModule],
  providers: [
    BalanceRepository,
    FillRepository,
    FillReadsRepository,
    FillReadsService,
    PositionRepository,
    SettlementRepository,
    BalancesService,
    CollateralRepriceService,
    LegPricingService,
    AcceptChecksService,
    AcceptService,
    AcceptRpc,
    FillRecordService,
    FillTransactionService,
    FillService,
    RevertUndoService,
    RevertTransactionService,
    RevertService,
    SettlementPaymentsService,
    SettlementTransactionService,
    SettlementService,
    LedgerSweepService,
    LedgerReadsService,
    RiskReportService,
  ],
  exports: [BalancesService, FillReadsService, RevertService, SettlementService, LedgerReadsService, RiskReportService],
})
export class LedgerModule {}
