import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { InstrumentsModule } from '../instruments/instruments.module';
import { AccountEventsStore } from './account-events';
import { EventRetention } from './event-retention';
import { QuoteService } from './quote.service';
import { RfqExpiry } from './rfq-expiry';
import { RfqReadsService } from './rfq-reads.service';
import { RfqReadsRepository } from './rfq.reads.repository';
import { RfqRpc } from './rfq.rpc';
import { RfqService } from './rfq.service';
import { RfqStore } from './rfq.store';
import { RfqTransitions } from './rfq-transitions';

/**
 * RFQs, quotes, makers' nonce high-water marks; create, respond, decline, list, poll, subscribe
 * and expiry. Exports the state mover, the reads and expiry for the accept, fill and settlement work.
 */
@Module({
  imports: [AccountsModule, InstrumentsModule, AuthModule],
  providers: [AccountEventsStore, EventRetention, RfqReadsRepository, RfqReadsService, RfqStore, RfqTransitions, RfqExpiry, RfqService, QuoteService, RfqRpc],
  exports: [AccountEventsStore, RfqReadsService, RfqStore, RfqTransitions, RfqExpiry, RfqService],
})
export class RfqModule {}
