import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { AccountIdParam } from '../accounts/account-id';
import { type AccountView, AccountsService, accountView } from '../accounts/accounts.service';
import { CreateAccountDto, SetRolesDto, TransferRequestDto } from '../accounts/dto/account.dto';
import { AdminAccess } from '../auth/access';
import { type BalanceRow, BalancesService, type TransferResult } from '../ledger/balances.service';

/** The admin read of an account: the account, whether it is anchored, and its balance row. */
export interface AdminAccountView extends AccountView {
  anchored: boolean;
  balance: BalanceRow;
}

/** Accounts stand for the out-of-band web sign-up; deposits and withdrawals for the chain watcher (design.md sections 3, 6). */
@Controller('v1/admin/accounts')
export class AccountsAdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalancesService,
  ) {}

  @Post()
  @AdminAccess('accounts')
  async create(@Body() body: CreateAccountDto): Promise<AccountView> {
    return accountView(await this.accounts.create(body.wallet, body.roles));
  }

  @Put(':account_id/roles')
  @AdminAccess('roles')
  async setRoles(@AccountIdParam() accountId: number, @Body() body: SetRolesDto): Promise<AccountView> {
    return accountView(await this.accounts.setRoles(accountId, body.roles));
  }

  @Get(':account_id')
  @AdminAccess('read')
  async get(@AccountIdParam() accountId: number): Promise<AdminAccountView> {
    const account = accountView(await this.accounts.get(accountId));
    const { anchored, balance } = (await this.balances.accountBalance(accountId))!;
    return { ...account, anchored, balance };
  }

  @Post(':account_id/deposit')
  @HttpCode(200)
  @AdminAccess('deposit')
  deposit(@AccountIdParam() accountId: number, @Body() body: TransferRequestDto): Promise<TransferResult> {
    return this.balances.deposit(accountId, body);
  }

  @Post(':account_id/withdraw')
  @HttpCode(200)
  @AdminAccess('withdraw')
  withdraw(@AccountIdParam() accountId: number, @Body() body: TransferRequestDto): Promise<TransferResult> {
    return this.balances.withdraw(accountId, body);
  }
}
