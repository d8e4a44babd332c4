import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { Public } from '../../common/access/access';
import { JournalService } from './journal.service';

export class JournalQueryDto {
  @ApiPropertyOptional({ description: 'Only receipts after this journal_seq (default 0: from the first)', pattern: '^(0|[1-9][0-9]{0,15})$' })
  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,15})$/, { message: 'after must be a journal_seq (an integer >= 0)' })
  after?: string;

  @ApiPropertyOptional({ description: 'At most this many receipts, 1 to 1000 (default 500)', pattern: '^([1-9][0-9]{0,2}|1000)$' })
  @IsOptional()
  @Matches(/^([1-9][0-9]{0,2}|1000)$/, { message: 'limit must be an integer from 1 to 1000' })
  limit?: string;
}

/** The exchange's keys and the receipt journal (docs/spec/design.md 14): public, as anyone may verify. */
@ApiTags('exchange')
@Controller('v1/exchange')
export class JournalController {
  constructor(private readonly journal: JournalService) {}

  @Get('keys')
  @Public()
  @ApiOperation({ summary: 'Public keys that sign fill receipts (rotation appends one)' })
  async keys() {
    return { keys: await this.journal.keys() };
  }

  @Get('journal')
  @Public()
  @ApiOperation({ summary: 'The receipt chain after `after` (no parties, no prices) and its head' })
  async segment(@Query() query: JournalQueryDto) {
    return this.journal.segment(Number(query.after ?? 0), Number(query.limit ?? 500));
  }
}
