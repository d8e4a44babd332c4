import { Body, Controller, Get, Put, UseInterceptors } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../common/errors/app-error';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AccountIdParam } from '../accounts/account-id';
import { AccountsService } from '../accounts/accounts.service';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { AdminAccess } from '../../common/access/access';
import { LimitsInvalid, parseLimits } from '../rfq/domain/maker-limits';
import { type LimitsView, MakerLimitsService } from '../rfq/maker-limits.service';
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
}
