import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdminRoutes } from './admin.routes';
import { AuditAdminRoutes } from './audit-admin.routes';
import { BackupAdminController } from './backup-admin.controller';
import { InstrumentsModule } from '../instruments/instruments.module';
import { JournalModule } from '../journal/journal.module';
import { LedgerModule } from '../ledger/ledger.module';
import { MakerLimitsAdminRoutes } from './maker-limits-admin.routes';
import { MarketDataModule } from '../market-data/market-data.module';
import { MarketsAdminRoutes } from './markets-admin.routes';
import { RfqModule } from '../rfq/rfq.module';

/**
 * The /v1/admin/* routes: declared routes (`@HttpRoute` handlers over the owning modules'
 * services; a declared admin command is recorded in the audit log by the declared-route path),
 * and the backup, a controller: its answer is a gzip file, not a JSON body
 * (`@UseInterceptors(AuditTrail)`, the audit log, docs/spec/design.md 16).
 */
@Module({
  imports: [AccountsModule, InstrumentsModule, JournalModule, MarketDataModule, LedgerModule, RfqModule],
  controllers: [BackupAdminController],
  providers: [AdminRoutes, AuditAdminRoutes, MakerLimitsAdminRoutes, MarketsAdminRoutes],
})
export class AdminModule {}
