import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { DocsModule } from '../docs/docs.module';
import { LedgerModule } from '../ledger/ledger.module';
import { MarketDataModule } from '../market-data/market-data.module';
import { RfqModule } from '../rfq/rfq.module';
import { ConsoleAdminRoutes } from './console-admin.routes';
import { ConsoleReadsService } from './console-reads.service';
import { JsonRpcReferenceController } from './json-rpc-reference.controller';

/**
 * The operator console's admin reads and the JSON-RPC reference page; the static console itself is
 * served by createApp (serveConsole). It owns no table: it reads through the owning modules
 * (RfqReadsService, FillReadsService, AccountsService, MarketDataService).
 */
@Module({
  imports: [AccountsModule, DocsModule, LedgerModule, MarketDataModule, RfqModule],
  controllers: [JsonRpcReferenceController],
  providers: [ConsoleReadsService, ConsoleAdminRoutes],
})
export class ConsoleModule {}
