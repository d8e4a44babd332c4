import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { AdminAccess } from '../../common/access/access';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { SettleExpirationDto } from '../ledger/dto/settle-expiration.dto';
import { RiskReportDto } from '../ledger/dto/risk-report.dto';
import { type RevertResult, RevertService } from '../ledger/revert.service';
import { type RiskReport, RiskReportService } from '../ledger/risk-report.service';
import { type SettleExpirationResult, SettlementService } from '../ledger/settlement.service';

/** Admin commands on the fill ledger: revert a fill, settle an expiration, the risk report (docs/spec/design.md sections 5, 7, 12). */
@ApiTags('admin')
@UseInterceptors(AuditTrail)
@Controller('v1/admin')
export class LedgerAdminController {
  constructor(
    private readonly reverts: RevertService,
    private readonly settlement: SettlementService,
    private readonly risk: RiskReportService,
  ) {}

  @Get('risk')
  @AdminAccess('read')
  @ApiOperation({ summary: 'Under-collateralized accounts (available < 0 at the latest index), most negative first, and their deficit (design.md section 12)' })
  @ApiOkResponse({ type: RiskReportDto })
  riskReport(): Promise<RiskReport> {
    return this.risk.report();
  }

  @Post('rfq/:rfq_id/revert')
  @HttpCode(200)
  @AdminAccess('revert')
  @ApiOperation({ summary: 'Revert a fill exactly (cash, fee, positions, locks); the RFQ moves filled → failed (RFQ_TX_FAILED, reverted)' })
  @ApiParam({ name: 'rfq_id', description: 'RFQ id: 32 lowercase hex characters', schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } })
  @ApiNotFoundResponse({ description: 'No such RFQ', type: ErrorResponse })
  @ApiConflictResponse({ description: 'Not filled (or reverted already), its round settled, or undoing would take an account below zero', type: ErrorResponse })
  revert(@Param('rfq_id') rfqId: string): Promise<RevertResult> {
    return this.reverts.revert(rfqId);
  }

  @Post('instruments/settle-expiration')
  @HttpCode(200)
  @AdminAccess('settle-expiration')
  @ApiOperation({ summary: 'Settle an expiration round now, at settlement_price or the fresh index; idempotent' })
  @ApiBadRequestResponse({ description: 'Bad asset, expiration or settlement_price', type: ErrorResponse })
  @ApiNotFoundResponse({ description: 'No such expiration of the asset', type: ErrorResponse })
  @ApiConflictResponse({ description: 'Settled already at another price, or no fresh index and no settlement_price', type: ErrorResponse })
  settle(@Body() body: SettleExpirationDto): Promise<SettleExpirationResult> {
    return this.settlement.settleExpiration(body);
  }
}
