import { Module } from '@nestjs/common';
import { ExchangeKeyService } from './exchange-key.service';
import { JournalAppender } from './journal-appender.service';
import { JournalRoutes } from './journal.routes';
import { JournalRepository } from './journal.repository';
import { JournalService } from './journal.service';

/**
 * Fill receipts, the journal that chains them, and the exchange key that signs them (docs/spec/design.md 14).
 * Owns receipts, journal_head, journal_pending and exchange_keys (JournalRepository).
 */
@Module({
  providers: [JournalRepository, ExchangeKeyService, JournalAppender, JournalService, JournalRoutes],
  exports: [JournalService, ExchangeKeyService],
})
export class JournalModule {}
