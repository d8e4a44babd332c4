import { Body, Controller, Get, HttpCode, Inject, Post, Put, Req, UseInterceptors } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../common/errors/app-error';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AccountIdParam } from '../accounts/account-id';
import { AccountsService } from '../accounts/accounts.service';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { AdminAccess } from '../../common/access/access';
import { LimitsInvalid, parseLimits } from '../rfq/domain/maker-limits';
import { type LimitsView, MakerLimitsService } from '../rfq/maker-limits.service';
import { MakerProtectionService } from '../rfq/maker-protection.service';
import type { AuthenticatedRequest } from '../../common/access/access';
import { clientIp } from '../../common/http/client-ip';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { MakerLimitsViewDto, PutMakerLimitsDto } from './dto/maker-limits.dto';

const ACCOUNT_ID = ApiParam({
  name: 'account_id',
  description: 'Account id: a positive integer in canonical decimal text',
  schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
});
const NOT_FOUND = ApiNotFoundResponse({ description: 'No such account', type: ErrorResponse });

type AdminLimitsView = LimitsView & { account_id: number };

/** The operator's ceiling over a maker's limits (docs/spec/design.md section 15): the console's Maker limits page. */
@ApiTags('admin')
@Controller('v1/admin/accounts')
@UseInterceptors(AuditTrail)
export class MakerLimitsAdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly limits: MakerLimitsService,
    private readonly protection: MakerProtectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':account_id/maker-limits')
  @AdminAccess('read')
  @ACCOUNT_ID
  @ApiOperation({ summary: "A maker's limits, the operator's ceiling, the usage of its live quotes at the current marks, and its protection state" })
  @ApiOkResponse({ type: MakerLimitsViewDto })
  @NOT_FOUND
  async get(@AccountIdParam() accountId: number): Promise<AdminLimitsView> {
    await this.accounts.get(accountId);
    return { account_id: accountId, ...(await this.limits.view(accountId)) };
  }

  @Put(':account_id/maker-limits')
  @AdminAccess('maker-limits')
  @ACCOUNT_ID
  @ApiOperation({
    summary: "Replace the operator's ceiling over a maker's limits",
    description: "Per field, the stricter of the maker's limits and this ceiling applies. Lowering never cancels a live quote.",
  })
  @ApiOkResponse({ type: MakerLimitsViewDto })
  @ApiBadRequestResponse({ description: 'A field of the limits is invalid (the message names it)', type: ErrorResponse })
  @NOT_FOUND
  async put(@AccountIdParam() accountId: number, @Body() body: PutMakerLimitsDto): Promise<AdminLimitsView> {
    let limits;
    try {
      limits = parseLimits(body.limits);
    } catch (error) {
      if (error instanceof LimitsInvalid) throw new AppError('INVALID_PARAMS', error.message);
      throw error;
    }
    await this.accounts.get(accountId);
    return { account_id: accountId, ...(await this.limits.set(accountId, 'admin_limits', limits)) };
  }

  @Post(':account_id/reset-protection')
  @HttpCode(200)
  @AdminAccess('reset-protection')
  @ACCOUNT_ID
  @ApiOperation({
    summary: "End a maker's protection freeze (the operator's reset)",
    description:
      "Ends the maker's freeze whatever its cause and starts a new fill window. A freeze implied by the operator's protection ends only by time or by this route (docs/spec/design.md section 20). Recorded in the audit log with the window's figures.",
  })
  @ApiOkResponse({ type: MakerLimitsViewDto })
  @NOT_FOUND
  async resetProtection(@AccountIdParam() accountId: number, @Req() request: AuthenticatedRequest): Promise<AdminLimitsView> {
    await this.accounts.get(accountId);
    const principal = request.principal!;
    const actor =
      principal.via === 'admin_token'
        ? { via: 'admin_token' as const, account_id: null, wallet: null, jti: null }
        : { via: 'session' as const, account_id: principal.accountId, wallet: principal.wallet, jti: null };
    const ip = clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
    return { account_id: accountId, ...(await this.protection.resetByAdmin(accountId, { actor, clientIp: ip })) };
  }
}
