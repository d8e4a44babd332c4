import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { type DirectoryMaker, MakerDirectoryRepository, type MakerStats } from './maker-directory.repository';

/** The stats' window (docs/spec/design.md 18 "Choosing a panel"): the last 7 days. */
export const STATS_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** rfq.makers (the listed makers, to takers) and rfq.maker.stats (a maker's own, listed or not). */
@Injectable()
export class MakerDirectoryService {
  constructor(
    private readonly directory: MakerDirectoryRepository,
    private readonly clock: Clock,
  ) {}

  async makers(): Promise<{ makers: DirectoryMaker[] }> {
    return { makers: await this.directory.listed(this.clock.nowMs() - STATS_WINDOW_MS) };
  }

  stats(makerAccountId: number): Promise<MakerStats> {
    return this.directory.stats(makerAccountId, this.clock.nowMs() - STATS_WINDOW_MS);
  }
}
