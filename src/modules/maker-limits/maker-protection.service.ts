import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { AuditService } from '../audit/audit.service';
import type { AuditActor, AuditValue } from '../audit/domain/audit-chain';
import { parseLimits } from './domain/maker-limits';
import { type MakerLimitsRow, MakerLimitsRepository } from './maker-limits.repository';
import { windowFigures } from './maker-protection-audit';
import { type LimitsView, MakerLimitsService } from './maker-limits.service';

/** Who resets a maker's protection, and from where (the audit row's actor and client_ip). */
export interface ProtectionResetBy {
  actor: AuditActor;
  clientIp: string;
}

/** Frozen at `nowMs`: tripped, and either until reset (no end) or before its end. */
function frozenAt(row: MakerLimitsRow | null, nowMs: number): row is MakerLimitsRow {
  return row?.trippedAt != null && (row.frozenUntil === null || row.frozenUntil * 1000 > nowMs);
}

/**
 * Who may end a maker's protection freeze, and the audit rows of every trip and reset
 * (docs/spec/design.md sections 15 and 20). When the operator's ceiling sets `protection`, its
 * freeze binds: only time or `POST /v1/admin/accounts/{id}/reset-protection` ends it, and the
 * maker's `rfq.maker.reset_protection` is RFQ_OPEN_LIMIT (`reason: maker_protection`, not
 * retryable). Without it, the maker's reset ends a freeze only when it has no end (the effective
 * `frozen_seconds` is 0); a timed freeze is RFQ_OPEN_LIMIT, retryable (it ends by time).
 */
@Injectable()
export class MakerProtectionService {
  constructor(
    private readonly rows: MakerLimitsRepository,
    private readonly limits: MakerLimitsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** rfq.maker.reset_protection: the maker's own reset, refused while a freeze it may not end holds. */
  async resetByMaker(accountId: number, by: ProtectionResetBy): Promise<LimitsView> {
    const row = await this.rows.find(accountId);
    if (frozenAt(row, this.clock.nowMs())) {
      const refusal = this.makerMayNotReset(row);
      if (refusal) {
        await this.record('maker-protection-reset', accountId, by, { refused: refusal.message, trip_reason: row.tripReason, until: row.frozenUntil }, 409);
        throw refusal;
      }
    }
    return this.reset(accountId, row, by);
  }

  /** POST /v1/admin/accounts/{account_id}/reset-protection: the operator ends any freeze. */
  resetByAdmin(accountId: number, by: ProtectionResetBy): Promise<LimitsView> {
    return this.rows.find(accountId).then((row) => this.reset(accountId, row, by));
  }

  private makerMayNotReset(row: MakerLimitsRow): RfqError | null {
    const until = row.frozenUntil === null ? 'until the operator resets it' : `until ${row.frozenUntil}`;
    if (parseLimits(row.adminLimits).protection) {
      return new RfqError(
        'RFQ_OPEN_LIMIT',
        `maker protection: the operator's protection froze this maker ${until}; only time or the operator's reset ends it`,
        { reason: 'maker_protection', retryable: false },
      );
    }
    if (row.frozenUntil !== null) {
      return new RfqError('RFQ_OPEN_LIMIT', `maker protection: frozen until ${row.frozenUntil} (frozen_seconds is not 0): the freeze ends by time`, {
        reason: 'maker_protection',
      });
    }
    return null;
  }

  private async reset(accountId: number, row: MakerLimitsRow | null, by: ProtectionResetBy): Promise<LimitsView> {
    const window = await this.rows.window(accountId);
    const frozen = frozenAt(row, this.clock.nowMs());
    await this.rows.reset(accountId, this.clock.now());
    const params = { was_frozen: frozen, trip_reason: row?.tripReason ?? null, until: frozen ? row.frozenUntil : null, window: windowFigures(window) };
    await this.record('maker-protection-reset', accountId, by, params, 200);
    return this.limits.view(accountId);
  }

  private async record(action: string, accountId: number, by: ProtectionResetBy, params: Record<string, unknown>, status: number): Promise<void> {
    try {
      await this.audit.record({
        at: this.clock.now(),
        actor: by.actor,
        client_ip: by.clientIp,
        action,
        target: { account_id: String(accountId) },
        params: JSON.parse(JSON.stringify(params)) as AuditValue,
        status,
      });
    } catch (error) {
      logger.event('error', 'maker protection not recorded in the audit log', { action, account_id: accountId, error: String(error) }, 'Rfq');
      throw error;
    }
  }
}
