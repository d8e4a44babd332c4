import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { AdminAccess } from '../auth/access';
import { MarketDataDto } from '../market-data/dto/market-data.dto';
import { type MarketDataResult, MarketDataService } from '../market-data/market-data.service';

/** Admin market data: index prices and implied volatilities (design.md section 6). */
@Controller('v1/admin')
export class MarketDataAdminController {
  constructor(private readonly market: MarketDataService) {}

  @Post('market-data')
  @HttpCode(200)
  @AdminAccess('market-data')
  update(@Body() body: MarketDataDto): Promise<MarketDataResult> {
    return this.market.update(body);
  }
}
