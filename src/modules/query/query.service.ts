import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/access';
import { type BalanceRow, BalancesService } from '../ledger/balances.service';
import { selectAccount } from './account-selector';

export interface Rows<T> {
  rows: T[];
}

/** The `/query/*` read models of balances and (order book) positions. */
@Injectable()
export class QueryService {
  constructor(private readonly ledgerBalances: BalancesService) {}

  /** The selected account's balance row; no row for an account that does not exist (admin readers only). */
  async balances(principal: Principal, accountId: string | undefined): Promise<Rows<BalanceRow>> {
    return { rows: await this.ledgerBalances.balanceRows([selectAccount(principal, accountId)]) };
  }

  /** Central limit order book positions: Legwork has no order book (design.md section 8). */
  positions(principal: Principal, accountId: string | undefined): Rows<never> {
    selectAccount(principal, accountId);
    return { rows: [] };
  }
}
