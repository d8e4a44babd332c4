import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { ROLES, type Role } from '../../auth/access';

/** `POST /v1/admin/accounts`: the wallet is checked by AccountsService (canonical, 32 bytes, not small order). */
export class CreateAccountDto {
  @IsString()
  wallet: string;

  /** Default: no role. */
  @IsOptional()
  @IsArray()
  @IsIn(ROLES, { each: true, message: `roles must be an array of ${ROLES.join(', ')}` })
  roles?: Role[];
}

/** `PUT /v1/admin/accounts/:account_id/roles`: the whole new set of roles. */
export class SetRolesDto {
  @IsArray()
  @IsIn(ROLES, { each: true, message: `roles must be an array of ${ROLES.join(', ')}` })
  roles: Role[];
}

/** `POST /v1/admin/accounts/:account_id/deposit` and `/withdraw`; BalancesService parses the amount. */
export class TransferRequestDto {
  /** Decimal text, up to 8 fractional digits, representable in micro-units, > 0. */
  @IsString({ message: 'amount must be a decimal string' })
  amount: string;

  /** The idempotency key: the chain transaction (or any unique text) the transfer stands for. */
  @IsString({ message: 'reference must be a string of 1 to 128 characters' })
  reference: string;
}
