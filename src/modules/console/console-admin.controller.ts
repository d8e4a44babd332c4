import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AdminAccess } from '../../common/access/access';
import { ConsoleReadsService } from './console-reads.service';
import {
  ACCOUNT_SEARCH_SCHEMA,
  AdminAccountSearchQuery,
  AdminRfqsQuery,
  MARKET_DATA_SCHEMA,
  OVERVIEW_SCHEMA,
  RFQ_EVENTS_SCHEMA,
  RFQ_ID_PATTERN,
  RFQ_ROW_SCHEMA,
} from './console.dto';

/** Admin reads the operator console polls (docs/console.md); admin:read scope like every admin GET. */
@ApiTags('admin')
@Controller('v1/admin')
export class ConsoleAdminController {
  constructor(
    private readonly reads: ConsoleReadsService,
    private readonly clock: Clock,
  ) {}

  @Get('overview')
  @AdminAccess('read')
  @ApiOperation({ summary: 'Queue depths, RFQs by state and fills per minute (the console overview)' })
  @ApiOkResponse({ schema: OVERVIEW_SCHEMA })
  overview() {
    return this.reads.overview(this.clock.now());
  }

  @Get('rfqs')
  @AdminAccess('read')
  @ApiOperation({ summary: 'RFQs of every account, newest first, with their quote and fill' })
  @ApiOkResponse({ schema: { type: 'object', properties: { rfqs: { type: 'array', items: RFQ_ROW_SCHEMA } } } })
  async rfqs(@Query() query: AdminRfqsQuery) {
    return { rfqs: await this.reads.rfqs({ state: query.state, accountId: query.account_id, before: query.before, limit: query.limit ?? 50 }) };
  }

  @Get('rfqs/:rfq_id/events')
  @AdminAccess('read')
  @ApiOperation({ summary: 'Every state move of one RFQ, in order' })
  @ApiParam({ name: 'rfq_id', description: 'RFQ id: 32 lowercase hex characters', schema: { type: 'string', pattern: RFQ_ID_PATTERN.source } })
  @ApiOkResponse({ schema: RFQ_EVENTS_SCHEMA })
  @ApiNotFoundResponse({ description: 'No such RFQ', type: ErrorResponse })
  async rfqEvents(@Param('rfq_id') rfqId: string) {
    if (!RFQ_ID_PATTERN.test(rfqId)) throw new AppError('INVALID_PARAMS', 'rfq_id must be 32 lowercase hex characters');
    const events = await this.reads.rfqEvents(rfqId);
    if (!events) throw new AppError('NOT_FOUND', 'no such RFQ');
    return { rfq_id: rfqId, events };
  }

  @Get('market-data')
  @AdminAccess('read')
  @ApiOperation({ summary: "Every asset's index price and its age (stale past MARKET_DATA_MAX_AGE_SECONDS)" })
  @ApiOkResponse({ schema: MARKET_DATA_SCHEMA })
  marketData() {
    return this.reads.marketData(this.clock.now());
  }

  @Get('accounts')
  @AdminAccess('read')
  @ApiOperation({ summary: 'Find the account of a wallet (an empty list when it has none)' })
  @ApiOkResponse({ schema: ACCOUNT_SEARCH_SCHEMA })
  async accounts(@Query() query: AdminAccountSearchQuery) {
    return { accounts: await this.reads.accountsByWallet(query.wallet) };
  }
}
