import { ViewVersionEntity } from './common/broadcast/view-version.entity';
import type { EntityClasses } from './common/database/database';
import { AccountEntity } from './modules/accounts/entities/account.entity';
import { CompetitionDeclineEntity } from './modules/competition/entities/competition-decline.entity';
import { CompetitionMakerEntity } from './modules/competition/entities/competition-maker.entity';
import { CompetitionPanelEntity } from './modules/competition/entities/competition-panel.entity';
import { CompetitionQuoteEntity } from './modules/competition/entities/competition-quote.entity';
import { CompetitionTranscriptEntity } from './modules/competition/entities/competition-transcript.entity';
import { MakerProfileEntity } from './modules/competition/entities/maker-profile.entity';
import { AuditEntryEntity } from './modules/audit/entities/audit-entry.entity';
import { AuditHeadEntity } from './modules/audit/entities/audit-head.entity';
import { AuthNonceEntity } from './modules/auth/entities/auth-nonce.entity';
import { ExpirationEntity } from './modules/instruments/entities/expiration.entity';
import { InstrumentEntity } from './modules/instruments/entities/instrument.entity';
import { ExchangeKeyEntity } from './modules/journal/entities/exchange-key.entity';
import { JournalHeadEntity } from './modules/journal/entities/journal-head.entity';
import { JournalPendingEntity } from './modules/journal/entities/journal-pending.entity';
import { ReceiptEntity } from './modules/journal/entities/receipt.entity';
import { AcceptEntity } from './modules/ledger/entities/accept.entity';
import { BalanceEntity } from './modules/ledger/entities/balance.entity';
import { FillLegEntity } from './modules/ledger/entities/fill-leg.entity';
import { FillEntity } from './modules/ledger/entities/fill.entity';
import { LockGroupEntity } from './modules/ledger/entities/lock-group.entity';
import { PositionEntity } from './modules/ledger/entities/position.entity';
import { SettlementPaymentEntity } from './modules/ledger/entities/settlement-payment.entity';
import { TransferEntity } from './modules/ledger/entities/transfer.entity';
import { IndexPriceEntity } from './modules/market-data/entities/index-price.entity';
import { InstrumentIvEntity } from './modules/market-data/entities/instrument-iv.entity';
import { AccountEventSeqEntity } from './modules/rfq/entities/account-event-seq.entity';
import { AccountEventEntity } from './modules/rfq/entities/account-event.entity';
import { MakerFillEntity } from './modules/maker-limits/entities/maker-fill.entity';
import { MakerLimitEntity } from './modules/maker-limits/entities/maker-limit.entity';
import { MakerNonceEntity } from './modules/rfq/entities/maker-nonce.entity';
import { RfqEventEntity } from './modules/rfq/entities/rfq-event.entity';
import { RfqEntity } from './modules/rfq/entities/rfq.entity';

/**
 * Every table's entity, by owning module: what the DataSource is built with (the app, the
 * migration CLI, the tests). It lives here, beside app.module.ts, because `common` imports no
 * module: the app hands this list to `InfrastructureModule.forRoot` and `Database.open`. A new
 * table gets an entity in its module's `entities/` and a line here (the schema test fails until
 * the migrations and the entities agree).
 */
export const ENTITIES: EntityClasses = [
  // accounts
  AccountEntity,
  // auth
  AuthNonceEntity,
  // instruments
  ExpirationEntity,
  InstrumentEntity,
  // market-data
  IndexPriceEntity,
  InstrumentIvEntity,
  // rfq
  RfqEntity,
  RfqEventEntity,
  MakerNonceEntity,
  MakerLimitEntity,
  MakerFillEntity,
  AccountEventEntity,
  AccountEventSeqEntity,
  // competition
  CompetitionQuoteEntity,
  CompetitionDeclineEntity,
  CompetitionTranscriptEntity,
  CompetitionMakerEntity,
  CompetitionPanelEntity,
  MakerProfileEntity,
  // ledger
  BalanceEntity,
  TransferEntity,
  AcceptEntity,
  FillEntity,
  FillLegEntity,
  PositionEntity,
  LockGroupEntity,
  SettlementPaymentEntity,
  // journal
  ReceiptEntity,
  JournalHeadEntity,
  JournalPendingEntity,
  ExchangeKeyEntity,
  // audit
  AuditEntryEntity,
  AuditHeadEntity,
  // common
  ViewVersionEntity,
];
