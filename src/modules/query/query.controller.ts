import { Controller, Get, Query } from '@nestjs/common';
import { type Principal, ReaderAccess } from '../auth/access';
import { CurrentPrincipal } from '../auth/principal.decorator';
import type { BalanceView } from '../ledger/balances.service';
import type { RfqFillRow, RfqPositionRow } from '../ledger/ledger-reads.service';
import { AccountQueryDto } from './dto/account-query.dto';
import { RfqFillsQueryDto, RfqPositionsQueryDto } from './dto/rfq-query.dto';
import { BALANCE_ROW, QueryResponse, RFQ_FILL_ROW, RFQ_POSITION_ROW } from './query-responses';
import { type CursorRows, QueryService, type Rows } from './query.service';

/** The HTTP query API (docs/spec/interface.md section 4.1, docs/spec/design.md section 8). */
@Controller('query')
export class QueryController {
  constructor(private readonly query: QueryService) {}

  @Get('balances')
  @ReaderAccess()
  @QueryResponse(BALANCE_ROW, { cursor: false })
  balances(@Query() query: AccountQueryDto, @CurrentPrincipal() principal: Principal): Promise<Rows<BalanceView>> {
    return this.query.balances(principal, query.account_id);
  }

  @Get('positions')
  @ReaderAccess()
  positions(@Query() query: AccountQueryDto, @CurrentPrincipal() principal: Principal): Rows<never> {
    return this.query.positions(principal, query.account_id);
  }

  @Get('rfq-positions')
  @ReaderAccess()
  @QueryResponse(RFQ_POSITION_ROW, { cursor: false })
  rfqPositions(@Query() query: RfqPositionsQueryDto, @CurrentPrincipal() principal: Principal): Promise<CursorRows<RfqPositionRow>> {
    return this.query.rfqPositions(principal, query);
  }

  @Get('rfq-fills')
  @ReaderAccess()
  @QueryResponse(RFQ_FILL_ROW, { cursor: true })
  rfqFills(@Query() query: RfqFillsQueryDto, @CurrentPrincipal() principal: Principal): Promise<CursorRows<RfqFillRow>> {
    return this.query.rfqFills(principal, query);
  }
}
