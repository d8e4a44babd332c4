import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import { JournalService } from './journal.service';

/** The exchange's keys and the receipt journal (docs/spec/design.md 14): public, as anyone may verify. */
@Injectable()
export class JournalRoutes {
  constructor(private readonly journal: JournalService) {}

  @HttpRoute('exchange.keys')
  async keys(): Promise<RouteResult<'exchange.keys'>> {
    return { keys: await this.journal.keys() };
  }

  @HttpRoute('exchange.journal')
  segment({ query }: RouteInput<'exchange.journal'>): Promise<RouteResult<'exchange.journal'>> {
    return this.journal.segment(Number(query.after ?? 0), Number(query.limit ?? 500));
  }
}
