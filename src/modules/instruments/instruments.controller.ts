import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/access/access';
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
  async list(@Query() query: ListInstrumentsQuery): Promise<{ instruments: readonly InstrumentRecord[] }> {
    const filter = { asset: query.asset, expiry: query.expiry, includeSettled: query.include_settled === 'true' };
    // Open instruments: the view's shared records, no I/O. With settled ones: older rounds read from the database too.
    return { instruments: await this.instruments.listedRecords(filter) };
  }
}
