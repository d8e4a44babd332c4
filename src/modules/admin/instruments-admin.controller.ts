import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { AdminAccess } from '../auth/access';
import { CreateInstrumentsDto, RoundDto } from '../instruments/dto/instruments.dto';
import { type CreateInstrumentsResult, InstrumentsService, type PauseResult } from '../instruments/instruments.service';

/** Admin commands on instruments (design.md section 2). */
@Controller('v1/admin')
export class InstrumentsAdminController {
  constructor(private readonly instruments: InstrumentsService) {}

  @Post('create-instruments')
  @HttpCode(200)
  @AdminAccess('create-instruments')
  create(@Body() body: CreateInstrumentsDto): Promise<CreateInstrumentsResult> {
    return this.instruments.create(body);
  }

  @Post('instruments/pause-by-expiration')
  @HttpCode(200)
  @AdminAccess('pause-by-expiration')
  pause(@Body() body: RoundDto): Promise<PauseResult> {
    return this.instruments.pauseByExpiration(body);
  }

  @Post('instruments/resume-by-expiration')
  @HttpCode(200)
  @AdminAccess('resume-by-expiration')
  resume(@Body() body: RoundDto): Promise<PauseResult> {
    return this.instruments.resumeByExpiration(body);
  }
}
