import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AccountsAdminController } from './accounts-admin.controller';
import { AuditAdminController } from './audit-admin.controller';
import { BackupAdminController } from './backup-admin.controller';
import { InstrumentsModule } from '../instruments/instruments.module';
import { InstrumentsAdminController } from './instruments-admin.controller';
import { JournalModule } from '../journal/journal.module';
import { LedgerModule } from '../ledger/ledger.module';
import { LedgerAdminController } from './ledger-admin.controller';
import { MarketDataModule } from '../market-data/market-data.module';
import { MarketDataAdminController } from './market-data-admin.controller';
import { MakerLimitsAdminController } from './maker-limits-admin.controller';
import { RfqModule } from '../rfq/rfq.module';

/**
 * The /v1/admin/* routes: thin controllers over the owning modules' services. Every controller with
 * an admin command carries `@UseInterceptors(AuditTrail)` (the audit log, docs/spec/design.md 16).
 */
@Module({
  imports: [AccountsModule, InstrumentsModule, JournalModule, MarketDataModule, LedgerModule, RfqModule],
  controllers: [
    AccountsAdminController,
    InstrumentsAdminController,
    MarketDataAdminController,
    LedgerAdminController,
    AuditAdminController,
    MakerLimitsAdminController,
    BackupAdminController,
  ],
})
export class AdminModule {}
