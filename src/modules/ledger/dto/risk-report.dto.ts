import { ApiProperty } from '@nestjs/swagger';
import { HTTP_DECIMAL } from '../../../common/http/api-fields';
import type { RiskReport } from '../risk-report.service';

type RiskAccount = RiskReport['accounts'][number];

export class RiskAccountDto implements RiskAccount {
  @ApiProperty({ type: 'integer' })
  account_id!: number;

  @ApiProperty(HTTP_DECIMAL('Total balance; negative: a debt left by a settlement beyond the stress range'))
  total!: string;

  @ApiProperty(HTTP_DECIMAL('Lock of the open positions at the latest index'))
  locked!: string;

  @ApiProperty(HTTP_DECIMAL('total - locked, below zero'))
  available!: string;
}

export class RiskTotalsDto {
  @ApiProperty(HTTP_DECIMAL("Sum of the listed accounts' total"))
  total!: string;

  @ApiProperty(HTTP_DECIMAL("Sum of the listed accounts' locked"))
  locked!: string;

  @ApiProperty(HTTP_DECIMAL("Sum of the listed accounts' negative available (zero or below)"))
  deficit!: string;
}

export class RiskReportDto implements RiskReport {
  @ApiProperty({ type: RiskAccountDto, isArray: true, description: 'Accounts with available < 0, most negative first' })
  accounts!: RiskAccountDto[];

  @ApiProperty({ type: RiskTotalsDto })
  totals!: RiskTotalsDto;
}
