import { Injectable } from '@nestjs/common';
import { I64_MAX } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';
import type { JsonText } from '../../common/rpc/json-text';
import type { Principal } from '../../common/access/access';
import { type BalanceView, BalancesService } from '../ledger/balances.service';
import { LedgerReadsService, type PositionStatus, type RfqPositionRow } from '../ledger/ledger-reads.service';
import { selectAccount } from './account-selector';
import type { RouteQueryText, RouteResult } from '@legwork/protocol';

export interface Rows<T> {
  rows: T[];
}

/** CursorRows (docs/spec/interface.md 2.2). */
export interface CursorRows<T> extends Rows<T> {
  next_cursor?: string;
}

const RFQ_POSITIONS_DEFAULT_LIMIT = 500;
const RFQ_FILLS_DEFAULT_LIMIT = 100;
/** `limit` as the route's declaration checked it (1 to MAX_QUERY_LIMIT), or the route's default. */
const pageSize = (limit: string | undefined, fallback: number): number => (limit === undefined ? fallback : Number(limit));

/** The `/query/*` read models: balances, (order book) positions, RFQ positions and RFQ fills. */
@Injectable()
export class QueryService {
  constructor(
    private readonly ledgerBalances: BalancesService,
    private readonly ledger: LedgerReadsService,
  ) {}

  /** The selected account's balance row; no row for an account that does not exist (admin readers only). */
  async balances(principal: Principal, accountId: string | undefined): Promise<Rows<BalanceView>> {
    return { rows: await this.ledgerBalances.balanceViews([selectAccount(principal, accountId)]) };
  }

  /** Central limit order book positions: Legwork has no order book (docs/spec/design.md section 8). */
  positions(principal: Principal, accountId: string | undefined): Rows<never> {
    selectAccount(principal, accountId);
    return { rows: [] };
  }

  /** Net RFQ positions, non-zero only, by expiry then instrument; no cursor (docs/spec/interface.md 4.1). */
  async rfqPositions(principal: Principal, query: RouteQueryText<'query.rfq-positions'>): Promise<JsonText<CursorRows<RfqPositionRow>>> {
    if (query.after !== undefined) throw new AppError('INVALID_PARAMS', 'after is not supported: rfq-positions has no cursor pagination');
    const limit = pageSize(query.limit, RFQ_POSITIONS_DEFAULT_LIMIT);
    const status = (query.status ?? 'open') as PositionStatus;
    const accountId = selectAccount(principal, query.account_id);
    return this.ledger.positions(accountId, status, limit);
  }

  /** RFQ fills as taker or maker, newest first; `next_cursor` continues with `after`. */
  async rfqFills(principal: Principal, query: RouteQueryText<'query.rfq-fills'>): Promise<RouteResult<'query.rfq-fills'>> {
    const limit = pageSize(query.limit, RFQ_FILLS_DEFAULT_LIMIT);
    if (query.after !== undefined && BigInt(query.after) > I64_MAX) throw new AppError('INVALID_PARAMS', 'after must be a fill id (a decimal integer)');
    const accountId = selectAccount(principal, query.account_id);
    const { rows: built, next } = await this.ledger.fills(accountId, query.after ?? null, limit);
    // The ledger chains a committed fill's receipt before it answers: no row it returns has none.
    const rows = built as RouteResult<'query.rfq-fills'>['rows'];
    return next === null ? { rows } : { rows, next_cursor: next };
  }
}
