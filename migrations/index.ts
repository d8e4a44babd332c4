import { Foundation1763800000000 } from './1763800000000-Foundation';
import { Rfq1763800000001 } from './1763800000001-Rfq';
import { Ledger1763800000002 } from './1763800000002-Ledger';
import { PositionAverage1763800000003 } from './1763800000003-PositionAverage';
import { Refuse1763800000004 } from './1763800000004-Refuse';
import { OpenRfqs1763800000005 } from './1763800000005-OpenRfqs';
import { EventsAndJournal1763800000006 } from './1763800000006-EventsAndJournal';
import { SessionsRevoked1763800000007 } from './1763800000007-SessionsRevoked';
import { ViewVersions1763800000012 } from './1763800000012-ViewVersions';
import { LiveCollateral1763800000014 } from './1763800000014-LiveCollateral';
import { ConsoleReads1763800000170 } from './1763800000170-ConsoleReads';
import { EntityMetadata1763800000180 } from './1763800000180-EntityMetadata';
import { AuditLog1763800000190 } from './1763800000190-AuditLog';
import { TakerSalt1763800000200 } from './1763800000200-TakerSalt';
import { RfqCancel1763800000210 } from './1763800000210-RfqCancel';
import { MakerLimits1763800000220 } from './1763800000220-MakerLimits';
import { RfqHistory1763800000250 } from './1763800000250-RfqHistory';
import { SettledRounds1763800000260 } from './1763800000260-SettledRounds';
import { ReceiptChainLink1763800000270 } from './1763800000270-ReceiptChainLink';
import { AuditExchangeActor1763800000300 } from './1763800000300-AuditExchangeActor';
import { AuditHeadSigned1763800000301 } from './1763800000301-AuditHeadSigned';
import { JournalPending1763800000320 } from './1763800000320-JournalPending';
import { Competition1763800000340 } from './1763800000340-Competition';
import { MakerQuotes1763800000360 } from './1763800000360-MakerQuotes';
import { MakerProfiles1763800000380 } from './1763800000380-MakerProfiles';
import { CompetitiveMakerQuotes1763800000390 } from './1763800000390-CompetitiveMakerQuotes';
import { MakerDirectory1763800000400 } from './1763800000400-MakerDirectory';
import { RfqChildrenWithoutForeignKeys1763800000410 } from './1763800000410-RfqChildrenWithoutForeignKeys';

/** Every migration, in order. The app runs the pending ones at start; `synchronize` is never on. */
export const MIGRATIONS = [
  Foundation1763800000000,
  Rfq1763800000001,
  Ledger1763800000002,
  PositionAverage1763800000003,
  Refuse1763800000004,
  OpenRfqs1763800000005,
  EventsAndJournal1763800000006,
  SessionsRevoked1763800000007,
  ViewVersions1763800000012,
  LiveCollateral1763800000014,
  ConsoleReads1763800000170,
  EntityMetadata1763800000180,
  AuditLog1763800000190,
  TakerSalt1763800000200,
  RfqCancel1763800000210,
  MakerLimits1763800000220,
  RfqHistory1763800000250,
  SettledRounds1763800000260,
  ReceiptChainLink1763800000270,
  AuditExchangeActor1763800000300,
  AuditHeadSigned1763800000301,
  JournalPending1763800000320,
  Competition1763800000340,
  MakerQuotes1763800000360,
  MakerProfiles1763800000380,
  CompetitiveMakerQuotes1763800000390,
  MakerDirectory1763800000400,
  RfqChildrenWithoutForeignKeys1763800000410,
];
