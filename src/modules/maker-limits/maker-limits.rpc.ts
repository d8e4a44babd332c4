import { Injectable } from '@nestjs/common';
import { RfqError } from '../../common/errors/app-error';
import { rfqCaller } from '../../common/rpc/rfq-caller';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { LimitsInvalid, parseLimits } from './domain/maker-limits';
import { MakerLimitsService } from './maker-limits.service';
import { MakerProtectionService } from './maker-protection.service';

/** The limits document of rfq.maker.set_limits, or the RFQ error naming the field. */
function limitsParam(value: unknown) {
  try {
    return parseLimits(value);
  } catch (error) {
    if (error instanceof LimitsInvalid) throw new RfqError(error.precision ? 'RFQ_PRECISION_UNSUPPORTED' : 'RFQ_VALUE_OUT_OF_RANGE', error.message);
    throw error;
  }
}

/** The maker desk methods (docs/spec/design.md section 15): limits and protection (rfq.maker.check, respond's checks, is the rfq module's MakerQuotesRpc). */
@Injectable()
export class MakerLimitsRpc {
  constructor(
    private readonly limits: MakerLimitsService,
    private readonly protection: MakerProtectionService,
  ) {}

  @RpcMethod('rfq.maker.set_limits')
  setLimits(params: { limits: unknown }, context: RpcContext) {
    return this.limits.set(rfqCaller(context).accountId, 'limits', limitsParam(params.limits));
  }

  @RpcMethod('rfq.maker.get_limits')
  getLimits(_params: object, context: RpcContext) {
    return this.limits.view(rfqCaller(context).accountId);
  }

  @RpcMethod('rfq.maker.reset_protection')
  resetProtection(_params: object, context: RpcContext) {
    const { accountId, wallet } = rfqCaller(context);
    return this.protection.resetByMaker(accountId, { actor: { via: 'session', account_id: accountId, wallet, jti: null }, clientIp: context.clientIp });
  }
}
