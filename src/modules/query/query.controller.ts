import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Principal, ReaderAccess } from '../../common/access/access';
import { CurrentPrincipal } from '../../common/access/principal.decorator';
import type { BalanceView } from '../ledger/balances.service';
import type { RfqFillRow, RfqPositionRow } from '../ledger/ledger-reads.service';
import { AccountQueryDto } from './dto/account-query.dto';
import { RfqFillsQueryDto, RfqPositionsQueryDto } from './dto/rfq-query.dto';
import { BALANCE_ROW, QueryResponse, RFQ_FILL_ROW, RFQ_POSITION_ROW } from './query-responses';
import { type CursorRows, QueryService, type Rows } from './query.service';

/** The HTTP query API (docs/spec/interface.md section 4.1, docs/spec/design.md section 8). */
@ApiTags('query')
@Controller('query')
export class QueryController {
  constructor(private readonly query: QueryService) {}

  @Get('balances')
  @ReaderAccess()
  @ApiOperation({ summary: 'The USDC balance row of the account (none for an account that does not exist)' })
  @QueryResponse(BALANCE_ROW, { cursor: false })
  balances(@Query() query: AccountQueryDto, @CurrentPrincipal() principal: Principal): Promise<Rows<BalanceView>> {
    return this.query.balances(principal, query.account_id);
  }

  @Get('positions')
  @ReaderAccess()
  @ApiOperation({ summary: 'Central limit order book positions: always none (Legwork has no order book; RFQ positions are /query/rfq-positions)' })
  @ApiOkResponse({
    schema: { type: 'object', properties: { rows: { type: 'array', maxItems: 0, items: {} } }, required: ['rows'], additionalProperties: false },
  })
  positions(@Query() query: AccountQueryDto, @CurrentPrincipal() principal: Principal): Rows<never> {
    return this.query.positions(principal, query.account_id);
  }

  @Get('rfq-positions')
  @ReaderAccess()
  @ApiOperation({ summary: 'Net RFQ positions per instrument, non-zero only, by expiry then instrument; no cursor (`after` is a 400)' })
  @QueryResponse(RFQ_POSITION_ROW, { cursor: false })
  rfqPositions(@Query() query: RfqPositionsQueryDto, @CurrentPrincipal() principal: Principal): Promise<CursorRows<RfqPositionRow>> {
    return this.query.rfqPositions(principal, query);
  }

  @Get('rfq-fills')
  @ReaderAccess()
  @ApiOperation({ summary: 'RFQ fills of the account as taker or maker, newest first, with their signed receipts; next_cursor continues with after' })
  @QueryResponse(RFQ_FILL_ROW, { cursor: true })
  rfqFills(@Query() query: RfqFillsQueryDto, @CurrentPrincipal() principal: Principal): Promise<CursorRows<RfqFillRow>> {
    return this.query.rfqFills(principal, query);
  }
}
