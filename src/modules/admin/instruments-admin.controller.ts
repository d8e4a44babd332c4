import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AdminAccess } from '../../common/access/access';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { CreateInstrumentsDto, CreateInstrumentsResultDto, PauseResultDto, RoundDto } from '../instruments/dto/instruments.dto';
import { type CreateInstrumentsResult, InstrumentsService, type PauseResult } from '../instruments/instruments.service';

/** Admin commands on instruments (docs/spec/design.md section 2). */
@ApiTags('admin')
@UseInterceptors(AuditTrail)
@Controller('v1/admin')
export class InstrumentsAdminController {
  constructor(private readonly instruments: InstrumentsService) {}

  @Post('create-instruments')
  @HttpCode(200)
  @AdminAccess('create-instruments')
  @ApiOperation({
    summary: 'Create the calls and puts of an asset and expiration',
    description:
      'Idempotent: existing instruments are skipped. Instruments created for a paused round are paused. Also schedules the settlement of the expiration.',
  })
  @ApiOkResponse({ type: CreateInstrumentsResultDto })
  @ApiConflictResponse({ description: 'The UTC date of the expiration holds a different expiration for the asset', type: ErrorResponse })
  create(@Body() body: CreateInstrumentsDto): Promise<CreateInstrumentsResult> {
    return this.instruments.create(body);
  }

  @Post('instruments/pause-by-expiration')
  @HttpCode(200)
  @AdminAccess('pause-by-expiration')
  @ApiOperation({ summary: 'Pause every instrument of an expiration round (durable and in the engine)' })
  @ApiOkResponse({ type: PauseResultDto })
  pause(@Body() body: RoundDto): Promise<PauseResult> {
    return this.instruments.pauseByExpiration(body);
  }

  @Post('instruments/resume-by-expiration')
  @HttpCode(200)
  @AdminAccess('resume-by-expiration')
  @ApiOperation({ summary: 'Resume a paused expiration round' })
  @ApiOkResponse({ type: PauseResultDto })
  resume(@Body() body: RoundDto): Promise<PauseResult> {
    return this.instruments.resumeByExpiration(body);
  }
}
