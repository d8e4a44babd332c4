import type { RouteResult } from './routes';

/**
 * The rows of the HTTP query API as TypeScript types, read off the routes' declarations
 * (routes-query.ts): the server builds them, the SDK returns them, the console reads them.
 */

/** A balance row (`GET /query/balances`): `available = total - locked`. */
export type BalanceRow = RouteResult<'query.balances'>['rows'][number];

/** A net RFQ position row (`GET /query/rfq-positions`); `average_price` null when none can be given. */
export type RfqPositionRow = RouteResult<'query.rfq-positions'>['rows'][number];

type DeclaredFillRow = RouteResult<'query.rfq-fills'>['rows'][number];

/**
 * A fill row (`GET /query/rfq-fills`), of the account as taker or as maker; the taker's receipts
 * carry `taker_salt`. `receipt` is null only in a row being built: the served row always has one
 * (the ledger has the appender chain a staged receipt before it answers).
 */
export type RfqFillRow = Omit<DeclaredFillRow, 'receipt'> & { receipt: DeclaredFillRow['receipt'] | null };
