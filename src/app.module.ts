import { type DynamicModule, Module } from '@nestjs/common';
import { ENTITIES } from './app-entities';
import type { AppConfig } from './common/config/config';
import { ConfigModule } from './common/config/config.module';
import { InfrastructureModule } from './common/infrastructure.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AdminModule } from './modules/admin/admin.module';
import { AuditModule } from './modules/audit/audit.module';
import { AuthModule } from './modules/auth/auth.module';
import { DocsModule } from './modules/docs/docs.module';
import { ConsoleModule } from './modules/console/console.module';
import { GatewayModule } from './modules/gateway/gateway.module';
import { HealthModule } from './modules/health/health.module';
import { InstrumentsModule } from './modules/instruments/instruments.module';
import { JournalModule } from './modules/journal/journal.module';
import { LedgerModule } from './modules/ledger/ledger.module';
import { MarketDataModule } from './modules/market-data/market-data.module';
import { QueryModule } from './modules/query/query.module';
import { RfqModule } from './modules/rfq/rfq.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        InfrastructureModule.forRoot(ENTITIES),
        AccountsModule,
        AuthModule,
        InstrumentsModule,
        MarketDataModule,
        JournalModule,
        LedgerModule,
        RfqModule,
        QueryModule,
        AuditModule,
        AdminModule,
        GatewayModule,
        HealthModule,
        DocsModule,
        ConsoleModule,
      ],
    };
  }
}
