import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AdminAccess } from '../../common/access/access';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { MarketDataDto, MarketDataResultDto } from '../market-data/dto/market-data.dto';
import { type MarketDataResult, MarketDataService } from '../market-data/market-data.service';

/** Admin market data: index prices and implied volatilities (docs/spec/design.md section 6). */
@ApiTags('admin')
@UseInterceptors(AuditTrail)
@Controller('v1/admin')
export class MarketDataAdminController {
  constructor(private readonly market: MarketDataService) {}

  @Post('market-data')
  @HttpCode(200)
  @AdminAccess('market-data')
  @ApiOperation({ summary: 'Set the index price and implied volatilities of an asset (stands for the market data feed)' })
  @ApiOkResponse({ type: MarketDataResultDto })
  @ApiNotFoundResponse({ description: 'No instrument of the asset is listed', type: ErrorResponse })
  update(@Body() body: MarketDataDto): Promise<MarketDataResult> {
    return this.market.update(body);
  }
}
