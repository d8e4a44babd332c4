import type { RouteResult } from '@legwork/protocol';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { clientIp } from '../../common/http/client-ip';
import { HttpRoute, type RouteContext, type RouteInput } from '../../common/http/http-route';
import { parseAccountId } from '../accounts/account-id';
import { AccountsService } from '../accounts/accounts.service';
import { LimitsInvalid, type MakerLimits, parseLimits } from '../maker-limits/domain/maker-limits';
import { MakerLimitsService } from '../maker-limits/maker-limits.service';
import { MakerProtectionService } from '../maker-limits/maker-protection.service';

/** The limits document, field by field: a bad field is the 400 naming it. */
function parseCeiling(limits: unknown): MakerLimits {
  try {
    return parseLimits(limits);
  } catch (error) {
    if (error instanceof LimitsInvalid) throw new AppError('INVALID_PARAMS', error.message);
    throw error;
  }
}

/** The operator's ceiling over a maker's limits (docs/spec/design.md section 15): the console's Maker limits page. */
@Injectable()
export class MakerLimitsAdminRoutes {
  constructor(
    private readonly accounts: AccountsService,
    private readonly limits: MakerLimitsService,
    private readonly protection: MakerProtectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @HttpRoute('admin.maker-limits')
  async get({ params }: RouteInput<'admin.maker-limits'>): Promise<RouteResult<'admin.maker-limits'>> {
    const accountId = parseAccountId(params.account_id);
    await this.accounts.get(accountId);
    return { account_id: accountId, ...(await this.limits.view(accountId)) };
  }

  /** The document is checked before the account is looked up. */
  @HttpRoute('admin.set-maker-limits')
  async put({ params, body }: RouteInput<'admin.set-maker-limits'>): Promise<RouteResult<'admin.set-maker-limits'>> {
    const accountId = parseAccountId(params.account_id);
    const limits = parseCeiling(body.limits);
    await this.accounts.get(accountId);
    return { account_id: accountId, ...(await this.limits.set(accountId, 'admin_limits', limits)) };
  }

  /** The reset's own audit row (maker-protection-reset, with the window's figures) names the admin who ran it. */
  @HttpRoute('admin.reset-protection')
  async resetProtection(
    { params }: RouteInput<'admin.reset-protection'>,
    { principal, request }: RouteContext<'admin.reset-protection'>,
  ): Promise<RouteResult<'admin.reset-protection'>> {
    const accountId = parseAccountId(params.account_id);
    await this.accounts.get(accountId);
    const actor =
      principal.via === 'admin_token'
        ? { via: 'admin_token' as const, account_id: null, wallet: null, jti: null }
        : { via: 'session' as const, account_id: principal.accountId, wallet: principal.wallet, jti: null };
    const ip = clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
    return { account_id: accountId, ...(await this.protection.resetByAdmin(accountId, { actor, clientIp: ip })) };
  }
}
