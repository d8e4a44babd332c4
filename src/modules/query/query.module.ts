import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { QueryController } from './query.controller';
import { QueryService } from './query.service';

@Module({ imports: [LedgerModule], controllers: [QueryController], providers: [QueryService] })
export class QueryModule {}
