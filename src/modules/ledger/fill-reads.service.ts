import { Injectable } from '@nestjs/common';
import { FillReadsRepository } from './fill-reads.repository';

/**
 * The ledger's read models over fills for the operator console (docs/console.md): what other
 * modules ask instead of naming `fills`. Exported by LedgerModule.
 */
@Injectable()
export class FillReadsService {
  constructor(private readonly reads: FillReadsRepository) {}

  /** Fills per minute (unix seconds of the minute's start) from `sinceSeconds` on; minutes without fills are absent. */
  perMinute(sinceSeconds: number): Promise<Map<number, number>> {
    return this.reads.perMinute(sinceSeconds);
  }
}
