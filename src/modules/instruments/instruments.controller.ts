import { Controller, Get, Query } from '@nestjs/common';
import { Public } from '../auth/access';
import { ListInstrumentsQuery } from './dto/instruments.dto';
import { type InstrumentRecord, instrumentRecord } from './instrument';
import { InstrumentsService } from './instruments.service';

/** GET /v1/instruments: the listed instruments, public (an addition: docs/decisions.md). */
@Controller('v1/instruments')
export class InstrumentsController {
  constructor(private readonly instruments: InstrumentsService) {}

  @Get()
  @Public()
  list(@Query() query: ListInstrumentsQuery): { instruments: InstrumentRecord[] } {
    const list = this.instruments.list({ asset: query.asset, expiry: query.expiry, includeSettled: query.include_settled === 'true' });
    return { instruments: list.map(instrumentRecord) };
  }
}
