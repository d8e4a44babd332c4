import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { QueryRoutes } from './query.routes';
import { QueryService } from './query.service';

@Module({ imports: [LedgerModule], providers: [QueryService, QueryRoutes] })
export class QueryModule {}
