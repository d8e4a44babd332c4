import { Injectable, type OnModuleInit } from '@nestjs/common';
import { formatHttp } from '@legwork/protocol';
import { MetricsService } from '../health/metrics.service';
import { BalanceRepository } from './balance.repository';

/** GET /v1/admin/risk (docs/spec/design.md section 12); decimals in the HTTP form (8 places, signed). */
export interface RiskReport {
  accounts: Array<{ account_id: number; total: string; locked: string; available: string }>;
  totals: { total: string; locked: string; deficit: string };
}

/**
 * The exchange's shortfall: the under-collateralized accounts (`available < 0`) with what they
 * hold and owe, for the admin risk report and the two gauges of `/metrics` (read at scrape time
 * from the same query, so the report and the metrics never disagree).
 */
@Injectable()
export class RiskReportService implements OnModuleInit {
  constructor(
    private readonly balances: BalanceRepository,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.collateralSource(async () => {
      const under = await this.balances.underCollateralized();
      return { accounts: under.length, deficit: under.reduce((sum, a) => sum - a.available, 0n) };
    });
  }

  async report(): Promise<RiskReport> {
    const under = await this.balances.underCollateralized();
    const sum = (pick: (a: (typeof under)[number]) => bigint) => under.reduce((s, a) => s + pick(a), 0n);
    return {
      accounts: under.map((a) => ({ account_id: a.accountId, total: formatHttp(a.total), locked: formatHttp(a.locked), available: formatHttp(a.available) })),
      // deficit: the sum of the negative availables, as a negative amount (what the exchange is short).
      totals: { total: formatHttp(sum((a) => a.total)), locked: formatHttp(sum((a) => a.locked)), deficit: formatHttp(sum((a) => a.available)) },
    };
  }
}
