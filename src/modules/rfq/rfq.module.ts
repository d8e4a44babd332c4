import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { InstrumentsModule } from '../instruments/instruments.module';
import { JournalModule } from '../journal/journal.module';
import { MarketDataModule } from '../market-data/market-data.module';
import { AccountEventRepository } from './account-event.repository';
import { AccountEventsService } from './account-events.service';
import { EventRetentionService } from './event-retention.service';
import { MakerLimitsModule } from '../maker-limits/maker-limits.module';
import { MakerQuotesRepository } from './maker-quotes.repository';
import { MakerQuotesRpc } from './maker-quotes.rpc';
import { QuoteChecksService } from './quote-checks.service';
import { QuoteTakeService } from './quote-take.service';
import { QuoteService } from './quote.service';
import { RfqCancelService } from './rfq-cancel.service';
import { RfqExpiryService } from './rfq-expiry.service';
import { RfqHistoryRepository } from './rfq-history.repository';
import { RfqHistoryService } from './rfq-history.service';
import { RfqLookupService } from './rfq-lookup.service';
import { RfqReadsService } from './rfq-reads.service';
import { RfqReadsRepository } from './rfq-reads.repository';
import { ReplayGovernor } from '../gateway/replay-governor';
import { RfqRpc } from './rfq.rpc';
import { RfqRepository } from './rfq.repository';
import { RfqCompetitionRepository } from './rfq-competition.repository';
import { CompetitionHooks } from './competition-port';
import { RfqBookService } from './rfq-book.service';
import { RfqService } from './rfq.service';
import { RfqTransitionsService } from './rfq-transitions.service';

/**
 * RFQs, quotes, makers' nonce high-water marks, the stored account events; create, respond,
 * decline, list, poll, subscribe, the taker's cancel and expiry. Owns the tables rfqs, rfq_events, maker_nonces
 * (RfqRepository), account_events and account_event_seqs (AccountEventRepository); the makers'
 * limits are MakerLimitsModule's, below this one (re-exported for the modules above); the history sweep
 * (RfqHistoryService) deletes what is past retention. Exports the
 * state mover, the reads and expiry for the ledger's accept, fill, revert and settlement.
 */
@Module({
  imports: [AccountsModule, InstrumentsModule, AuthModule, JournalModule, MarketDataModule, MakerLimitsModule],
  providers: [
    RfqRepository,
    RfqCompetitionRepository,
    CompetitionHooks,
    RfqReadsRepository,
    RfqReadsService,
    AccountEventRepository,
    AccountEventsService,
    EventRetentionService,
    RfqHistoryRepository,
    RfqHistoryService,
    RfqLookupService,
    RfqTransitionsService,
    RfqExpiryService,
    RfqService,
    RfqBookService,
    RfqCancelService,
    QuoteChecksService,
    QuoteTakeService,
    QuoteService,
    RfqRpc,
    ReplayGovernor,
    MakerQuotesRepository,
    MakerQuotesRpc,
  ],
  exports: [
    CompetitionHooks,
    RfqCompetitionRepository,
    MakerLimitsModule,
    AccountEventsService,
    RfqLookupService,
    RfqReadsService,
    RfqTransitionsService,
    RfqExpiryService,
    RfqService,
  ],
})
export class RfqModule {}
