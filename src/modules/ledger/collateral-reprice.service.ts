import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import type { Tx } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { MarketDataService } from '../market-data/market-data.service';
import { repriceAsset } from './collateral.sql';

/**
 * Live collateral (docs/spec/design.md section 12): every index update reprices every lock on its
 * asset in the update's own transaction. Market data runs the hook; the ledger owns the lock groups
 * and the statement, so the dependency points from the ledger to market data, never back.
 */
@Injectable()
export class CollateralRepriceService implements OnModuleInit {
  constructor(
    private readonly marketData: MarketDataService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.marketData.onIndexWritten((tx, asset) => this.reprice(tx, asset));
  }

  private async reprice(tx: Tx, asset: string): Promise<void> {
    const repriced = await repriceAsset(tx, asset, this.config.lockUpsideBps);
    logger.event('debug', 'locks repriced', { asset, changed: repriced.changed }, 'Ledger');
  }
}
