import { Injectable } from '@nestjs/common';
import type { RouteResult } from '@legwork/protocol';
import { HttpRoute, type RouteAnswer, type RouteContext, type RouteInput } from '../../common/http/http-route';
import { QueryService } from './query.service';

/** The handlers of the HTTP query API (`QUERY_ROUTES` of `@legwork/protocol`; docs/spec/interface.md 4.1, design.md section 8). */
@Injectable()
export class QueryRoutes {
  constructor(private readonly query: QueryService) {}

  @HttpRoute('query.balances')
  balances({ query }: RouteInput<'query.balances'>, { principal }: RouteContext<'query.balances'>): Promise<RouteResult<'query.balances'>> {
    return this.query.balances(principal, query.account_id);
  }

  @HttpRoute('query.positions')
  positions({ query }: RouteInput<'query.positions'>, { principal }: RouteContext<'query.positions'>): RouteResult<'query.positions'> {
    return this.query.positions(principal, query.account_id);
  }

  @HttpRoute('query.rfq-positions')
  rfqPositions({ query }: RouteInput<'query.rfq-positions'>, { principal }: RouteContext<'query.rfq-positions'>): Promise<RouteAnswer<'query.rfq-positions'>> {
    return this.query.rfqPositions(principal, query);
  }

  @HttpRoute('query.rfq-fills')
  rfqFills({ query }: RouteInput<'query.rfq-fills'>, { principal }: RouteContext<'query.rfq-fills'>): Promise<RouteResult<'query.rfq-fills'>> {
    return this.query.rfqFills(principal, query);
  }

  /** A desk checks a token before trading on it, and learns when to sign in again. */
  @HttpRoute('query.session')
  session(_input: RouteInput<'query.session'>, { principal }: RouteContext<'query.session'>): RouteResult<'query.session'> {
    const { accountId, wallet, roles, scopes, expiresAt } = principal;
    return { account_id: accountId, wallet, roles: [...roles], scopes: [...scopes], expires_at: expiresAt ?? null };
  }
}
