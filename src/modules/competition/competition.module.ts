import { Module } from '@nestjs/common';
import { CancelOnDisconnectService } from './cancel-on-disconnect.service';
import { JournalModule } from '../journal/journal.module';
import { RfqModule } from '../rfq/rfq.module';
import { CompetitionAcceptService } from './competition-accept.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionExpiryService } from './competition-expiry.service';
import { CompetitionRepository } from './competition.repository';
import { CompetitionRpc } from './competition.rpc';
import { CompetitionService } from './competition.service';
import { MakerDirectoryRepository } from './maker-directory.repository';
import { MakerDirectoryService } from './maker-directory.service';
import { MakerProfileRepository } from './maker-profile.repository';
import { MakerQuotesService } from './maker-quotes.service';
import { TranscriptService } from './transcript.service';

/**
 * Competitive RFQs (docs/spec/design.md 18): several makers quote one RFQ, the taker takes one, and
 * the exchange signs what it was offered. Owns competition_quotes, competition_declines,
 * competition_transcripts and competition_makers (CompetitionRepository), maker_profiles
 * (MakerProfileRepository) and competition_panels (MakerDirectoryRepository; written with the RFQ
 * by `rfq`'s create). Asks `rfq` (the one
 * place state moves, its reads, the maker limits) and `journal` (the exchange key); registers
 * CompetitionService with `rfq` (CompetitionHooks) for respond, decline, cancel and the limits usage; the
 * ledger's accept asks CompetitionAcceptService.
 */
@Module({
  imports: [RfqModule, JournalModule],
  providers: [
    CompetitionRepository,
    MakerProfileRepository,
    MakerDirectoryRepository,
    MakerDirectoryService,
    CompetitionCloseService,
    MakerQuotesService,
    CompetitionService,
    CompetitionAcceptService,
    CompetitionExpiryService,
    TranscriptService,
    CompetitionRpc,
    CancelOnDisconnectService,
  ],
  exports: [CompetitionAcceptService],
})
export class CompetitionModule {}
