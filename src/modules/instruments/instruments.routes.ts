import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import { InstrumentsService } from './instruments.service';

/** GET /v1/instruments: the listed instruments, public (an addition: docs/decisions.md). */
@Injectable()
export class InstrumentsRoutes {
  constructor(private readonly instruments: InstrumentsService) {}

  @HttpRoute('public.instruments')
  async list({ query }: RouteInput<'public.instruments'>): Promise<RouteResult<'public.instruments'>> {
    const filter = {
      asset: query.asset,
      expiry: query.expiry === undefined ? undefined : Number(query.expiry),
      includeSettled: query.include_settled === 'true',
    };
    // Open instruments: the view's shared records, no I/O. With settled ones: older rounds read from the database too.
    return { instruments: [...(await this.instruments.listedRecords(filter))] };
  }
}
