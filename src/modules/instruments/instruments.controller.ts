import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access';
import { InstrumentListDto, ListInstrumentsQuery } from './dto/instruments.dto';
import type { InstrumentRecord } from './instrument';
import { InstrumentsService } from './instruments.service';

/** GET /v1/instruments: the listed instruments, public (an addition: docs/decisions.md). */
@ApiTags('instruments')
@Controller('v1/instruments')
export class InstrumentsController {
  constructor(private readonly instruments: InstrumentsService) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Listed instruments (default: open ones of every asset)' })
  @ApiOkResponse({ type: InstrumentListDto })
  list(@Query() query: ListInstrumentsQuery): { instruments: readonly InstrumentRecord[] } {
    return { instruments: this.instruments.records({ asset: query.asset, expiry: query.expiry, includeSettled: query.include_settled === 'true' }) };
  }
}
