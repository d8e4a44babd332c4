import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import { parseAccountId } from '../accounts/account-id';
import { AccountsService, accountView } from '../accounts/accounts.service';
import { BalancesService, parseTransferRequest } from '../ledger/balances.service';
import { RiskReportService } from '../ledger/risk-report.service';

/** Admin reads of an account and of the exchange's shortfall, and the account commands (`ADMIN_ROUTES` of `@legwork/protocol`). */
@Injectable()
export class AdminRoutes {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalancesService,
    private readonly riskReport: RiskReportService,
  ) {}

  /** The account, whether it is anchored, and its balance row. */
  @HttpRoute('admin.account')
  async account({ params }: RouteInput<'admin.account'>): Promise<RouteResult<'admin.account'>> {
    // The pattern admits 16 digits; past 2^53 - 1 it is the same 400.
    const accountId = parseAccountId(params.account_id);
    const account = accountView(await this.accounts.get(accountId));
    const { anchored, balance } = (await this.balances.accountBalance(accountId))!;
    return { ...account, anchored, balance };
  }

  /** Recorded in the audit log by the declared-route path (an admin command). */
  @HttpRoute('admin.revoke-sessions')
  revokeSessions({ params }: RouteInput<'admin.revoke-sessions'>): Promise<RouteResult<'admin.revoke-sessions'>> {
    return this.accounts.revokeSessions(parseAccountId(params.account_id));
  }

  @HttpRoute('admin.deposit')
  deposit({ params, body }: RouteInput<'admin.deposit'>): Promise<RouteResult<'admin.deposit'>> {
    return this.balances.deposit(parseAccountId(params.account_id), parseTransferRequest(body));
  }

  @HttpRoute('admin.withdraw')
  withdraw({ params, body }: RouteInput<'admin.withdraw'>): Promise<RouteResult<'admin.withdraw'>> {
    return this.balances.withdraw(parseAccountId(params.account_id), parseTransferRequest(body));
  }

  /** Stands for the out-of-band web sign-up (docs/spec/design.md section 3): the service checks the wallet. */
  @HttpRoute('admin.create-account')
  async createAccount({ body }: RouteInput<'admin.create-account'>): Promise<RouteResult<'admin.create-account'>> {
    return accountView(await this.accounts.create(body.wallet, body.roles));
  }

  @HttpRoute('admin.set-roles')
  async setRoles({ params, body }: RouteInput<'admin.set-roles'>): Promise<RouteResult<'admin.set-roles'>> {
    return accountView(await this.accounts.setRoles(parseAccountId(params.account_id), body.roles));
  }

  @HttpRoute('admin.risk')
  risk(): Promise<RouteResult<'admin.risk'>> {
    return this.riskReport.report();
  }
}
