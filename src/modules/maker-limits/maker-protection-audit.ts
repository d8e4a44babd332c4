import { formatRfq } from '@legwork/protocol';
import { logger } from '../../common/logging/logger';
import type { AuditService } from '../audit/audit.service';
import type { AuditActor, AuditValue } from '../audit/domain/audit-chain';
import type { FillWindow } from './domain/quote-exposure';

/** The exchange itself, the actor of a trip (docs/spec/design.md section 20). */
const EXCHANGE: AuditActor = { via: 'exchange', account_id: null, wallet: null, jti: null };

/** A fill window as the audit row keeps it: decimals as RfqDecimal strings. */
export function windowFigures(window: FillWindow): Record<string, unknown> {
  return {
    fills: window.fills,
    notional: formatRfq(window.notional),
    delta: Object.fromEntries(Object.entries(window.delta).map(([asset, v]) => [asset, formatRfq(v)])),
  };
}

/**
 * The audit row of a trip, by the exchange, written once the trip committed (a row of its own
 * transaction, as every audit row). A failure is logged: the trip stands, as the fill does.
 */
export async function recordTrip(
  audit: AuditService,
  accountId: number,
  trip: { tripped_at: number; until: number | null; reason: string },
  window: FillWindow,
): Promise<void> {
  await audit
    .record({
      at: trip.tripped_at,
      actor: EXCHANGE,
      client_ip: '-',
      action: 'maker-protection-trip',
      target: { account_id: String(accountId) },
      params: JSON.parse(JSON.stringify({ ...trip, window: windowFigures(window) })) as AuditValue,
      status: 200,
    })
    .catch((error: unknown) =>
      logger.event('error', 'maker protection trip not recorded in the audit log', { account_id: accountId, error: String(error) }, 'Rfq'),
    );
}
