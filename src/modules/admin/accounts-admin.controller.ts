import { Body, Controller, Get, HttpCode, Post, Put, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AccountIdParam } from '../accounts/account-id';
import { type AccountView, AccountsService, accountView } from '../accounts/accounts.service';
import { AccountViewDto, CreateAccountDto, RevokeSessionsResultDto, SetRolesDto, TransferRequestDto } from '../accounts/dto/account.dto';
import { AdminAccess } from '../../common/access/access';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { type BalanceView, BalancesService, type TransferResult, parseTransferRequest } from '../ledger/balances.service';
import { AdminAccountViewDto, TransferResultDto } from './dto/admin-account.dto';

/** The admin read of an account: the account, whether it is anchored, and its balance row. */
export interface AdminAccountView extends AccountView {
  anchored: boolean;
  balance: BalanceView;
}

const ACCOUNT_ID = ApiParam({
  name: 'account_id',
  description: 'Account id: a positive integer in canonical decimal text',
  schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
});
const NOT_FOUND = ApiNotFoundResponse({ description: 'No such account', type: ErrorResponse });

/** Accounts stand for the out-of-band web sign-up; deposits and withdrawals for the chain watcher (docs/spec/design.md sections 3, 6). */
@ApiTags('admin')
@UseInterceptors(AuditTrail)
@Controller('v1/admin/accounts')
export class AccountsAdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalancesService,
  ) {}

  @Post()
  @AdminAccess('accounts')
  @ApiOperation({ summary: 'Create the account of a wallet (stands for the web sign-up)' })
  @ApiCreatedResponse({ type: AccountViewDto })
  @ApiConflictResponse({ description: 'The wallet has an account already', type: ErrorResponse })
  async create(@Body() body: CreateAccountDto): Promise<AccountView> {
    return accountView(await this.accounts.create(body.wallet, body.roles));
  }

  @Put(':account_id/roles')
  @AdminAccess('roles')
  @ACCOUNT_ID
  @ApiOperation({ summary: "Replace an account's roles" })
  @ApiOkResponse({ type: AccountViewDto })
  @NOT_FOUND
  async setRoles(@AccountIdParam() accountId: number, @Body() body: SetRolesDto): Promise<AccountView> {
    return accountView(await this.accounts.setRoles(accountId, body.roles));
  }

  @Post(':account_id/revoke-sessions')
  @HttpCode(200)
  @AdminAccess('revoke-sessions')
  @ACCOUNT_ID
  @ApiOperation({
    summary: 'End every session of an account',
    description:
      'Tokens issued at or before revoked_at are refused from then on (401; public/session_resume 1004); live WebSocket sessions on every instance receive the session/revoked notification within 1 s.',
  })
  @ApiOkResponse({ type: RevokeSessionsResultDto })
  @NOT_FOUND
  revokeSessions(@AccountIdParam() accountId: number): Promise<{ account_id: number; revoked_at: number }> {
    return this.accounts.revokeSessions(accountId);
  }

  @Get(':account_id')
  @AdminAccess('read')
  @ACCOUNT_ID
  @ApiOperation({ summary: 'An account with its balance row' })
  @ApiOkResponse({ type: AdminAccountViewDto })
  @NOT_FOUND
  async get(@AccountIdParam() accountId: number): Promise<AdminAccountView> {
    const account = accountView(await this.accounts.get(accountId));
    const { anchored, balance } = (await this.balances.accountBalance(accountId))!;
    return { ...account, anchored, balance };
  }

  @Post(':account_id/deposit')
  @HttpCode(200)
  @AdminAccess('deposit')
  @ACCOUNT_ID
  @ApiOperation({ summary: 'Credit a deposit (stands for the chain watcher); idempotent by reference' })
  @ApiOkResponse({ type: TransferResultDto })
  @NOT_FOUND
  @ApiConflictResponse({ description: 'The deposit would take the balance out of range', type: ErrorResponse })
  deposit(@AccountIdParam() accountId: number, @Body() body: TransferRequestDto): Promise<TransferResult> {
    return this.balances.deposit(accountId, parseTransferRequest(body));
  }

  @Post(':account_id/withdraw')
  @HttpCode(200)
  @AdminAccess('withdraw')
  @ACCOUNT_ID
  @ApiOperation({ summary: 'Debit a withdrawal; idempotent by reference' })
  @ApiOkResponse({ type: TransferResultDto })
  @NOT_FOUND
  @ApiConflictResponse({ description: 'The free balance would go below zero', type: ErrorResponse })
  withdraw(@AccountIdParam() accountId: number, @Body() body: TransferRequestDto): Promise<TransferResult> {
    return this.balances.withdraw(accountId, parseTransferRequest(body));
  }
}
