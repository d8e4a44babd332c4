import { Module } from '@nestjs/common';
import { MarketDataModule } from '../market-data/market-data.module';
import { LimitsHooks } from './limits-hooks';
import { MakerLimitsRepository } from './maker-limits.repository';
import { MakerLimitsRpc } from './maker-limits.rpc';
import { MakerLimitsService } from './maker-limits.service';
import { MakerProtectionService } from './maker-protection.service';
import { ProtectionTripService } from './protection-trip.service';

/**
 * Makers' limits on their firm quotes and their protection after fills (docs/spec/design.md
 * section 15): owns maker_limits and maker_fills (MakerLimitsRepository); rfq.maker.set_limits,
 * get_limits and reset_protection. Below the rfq module: what it asks of the modules above
 * (competitive quotes, the account events a trip is numbered with) they register on LimitsHooks.
 */
@Module({
  imports: [MarketDataModule],
  providers: [LimitsHooks, MakerLimitsRepository, MakerLimitsService, ProtectionTripService, MakerProtectionService, MakerLimitsRpc],
  exports: [LimitsHooks, MakerLimitsService, ProtectionTripService, MakerProtectionService],
})
export class MakerLimitsModule {}
