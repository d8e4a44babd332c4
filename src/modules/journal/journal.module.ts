import { Module } from '@nestjs/common';
import { ExchangeKey } from './exchange-key';
import { JournalController } from './journal.controller';
import { JournalStore } from './journal.store';

/** Fill receipts, the journal that chains them, and the exchange key that signs them (design.md 14). */
@Module({
  controllers: [JournalController],
  providers: [ExchangeKey, JournalStore],
  exports: [JournalStore, ExchangeKey],
})
export class JournalModule {}
