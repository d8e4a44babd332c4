import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { ROLES, type Role } from '../../../common/access/access';
import { ISO_TIME } from '../../../common/http/api-fields';
import type { AccountView } from '../accounts.service';

const WALLET = {
  description: 'Solana wallet address: base58 of a 32-byte ed25519 public key (canonical, not of small order)',
  example: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
};

/** `POST /v1/admin/accounts`: the wallet is checked by AccountsService (canonical, 32 bytes, not small order). */
export class CreateAccountDto {
  @ApiProperty(WALLET)
  @IsString()
  wallet: string;

  /** Default: no role. */
  @ApiPropertyOptional({ enum: ROLES, isArray: true, description: 'Default: no role. taker: may open RFQs (the allowlist); quoter: may quote' })
  @IsOptional()
  @IsArray()
  @IsIn(ROLES, { each: true, message: `roles must be an array of ${ROLES.join(', ')}` })
  roles?: Role[];
}

/** `PUT /v1/admin/accounts/:account_id/roles`: the whole new set of roles. */
export class SetRolesDto {
  @ApiProperty({ enum: ROLES, isArray: true, description: 'The whole new set of roles' })
  @IsArray()
  @IsIn(ROLES, { each: true, message: `roles must be an array of ${ROLES.join(', ')}` })
  roles: Role[];
}

/** `POST /v1/admin/accounts/:account_id/deposit` and `/withdraw`; BalancesService parses the amount. */
export class TransferRequestDto {
  /** Decimal text, up to 8 fractional digits, representable in micro-units, > 0. */
  @ApiProperty({ description: 'USDC amount > 0: decimal text, up to 8 fractional digits, representable in 10^-6 units', example: '100.5' })
  @IsString({ message: 'amount must be a decimal string' })
  amount: string;

  /** The idempotency key: the chain transaction (or any unique text) the transfer stands for. */
  @ApiProperty({
    description: 'Idempotency key (1 to 128 characters): the chain transaction the transfer stands for; a repeat changes nothing',
    minLength: 1,
    maxLength: 128,
  })
  @IsString({ message: 'reference must be a string of 1 to 128 characters' })
  reference: string;
}

/** An account as the admin API answers it. */
export class AccountViewDto implements AccountView {
  @ApiProperty({ type: 'integer', minimum: 1 })
  account_id: number;

  @ApiProperty(WALLET)
  wallet: string;

  @ApiProperty({ enum: ROLES, isArray: true })
  roles: Role[];

  @ApiProperty(ISO_TIME)
  created_at: string;
}

/** `POST /v1/admin/accounts/:account_id/revoke-sessions` (docs/spec/design.md section 10). */
export class RevokeSessionsResultDto {
  @ApiProperty({ description: 'Account id', example: 42 })
  account_id: number;

  @ApiProperty({ description: 'Unix seconds: every session token of the account issued at or before it is refused', example: 1767225600 })
  revoked_at: number;
}
