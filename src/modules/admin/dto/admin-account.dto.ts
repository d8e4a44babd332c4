import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { HTTP_DECIMAL } from '../../../common/http/api-fields';
import { AccountViewDto } from '../../accounts/dto/account.dto';
import type { BalanceView } from '../../ledger/balances.service';
import { BALANCE_ROW } from '../../query/query-responses';

/**
 * The balance row of the HTTP API (docs/spec/design.md section 6: `available = total - locked` is the free
 * balance), as `/query/balances` declares it: one schema for every route that answers one.
 */
const balanceRow = (description?: string): ApiPropertyOptions => ({ ...BALANCE_ROW, ...(description ? { description } : {}) }) as unknown as ApiPropertyOptions;

/** GET /v1/admin/accounts/:account_id. */
export class AdminAccountViewDto extends AccountViewDto {
  @ApiProperty({ description: 'The account has a ledger row (created by its first deposit)' })
  anchored: boolean;

  @ApiProperty(balanceRow())
  balance: BalanceView;
}

/** Result of a deposit or withdrawal. */
export class TransferResultDto {
  @ApiProperty({ type: 'integer' })
  account_id: number;

  @ApiProperty()
  reference: string;

  @ApiProperty({ enum: ['deposit', 'withdrawal'] })
  kind: 'deposit' | 'withdrawal';

  @ApiProperty(HTTP_DECIMAL('Amount moved'))
  amount: string;

  @ApiProperty(balanceRow('The balance row after the transfer (on a repeat: the row as it is now)'))
  balance: BalanceView;
}
