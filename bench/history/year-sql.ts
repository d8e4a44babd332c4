import type { Client } from 'pg';
import { FEE_ACCOUNT_WALLET } from '@legwork/protocol';
import { type Account, DAY, type Expiration, type Scale, type YearInstrument, decimal, firstPlainTaker, hotTakerId, prng, settlementPrice } from './plan';

/**
 * The set-based parts of the synthetic year (INSERT ... SELECT FROM generate_series): reference
 * rows, the RFQs that ended unfilled within the retention window, rfq_events, positions and
 * settlements folded from the fills, balances, lock groups and locks, account events.
 */

/** Accounts (explicit ids), their deposits, the rounds and their instruments, index prices and IVs. */
export async function writeReference(c: Client, s: Scale, accounts: Account[], rounds: Expiration[], list: YearInstrument[], now: number): Promise<void> {
  await c.query(`INSERT INTO accounts (id, wallet, roles, created_at) VALUES (1, $1, '{}', to_timestamp($2))`, [FEE_ACCOUNT_WALLET, now - 366 * DAY]);
  await c.query(
    `INSERT INTO accounts (id, wallet, roles, created_at)
     SELECT id, wallet, string_to_array(role, ','), to_timestamp($4 + id % 86400) FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, wallet, role)`,
    [accounts.map((a) => a.id), accounts.map((a) => a.wallet), accounts.map((a) => a.roles.join(',')), now - 366 * DAY],
  );
  await c.query(`SELECT setval('accounts_id_seq', $1)`, [s.accounts]);
  const hotLast = hotTakerId(s, s.hotTakers - 1);
  await c.query(
    `INSERT INTO transfers (account_id, kind, amount, reference, created_at)
     SELECT id, 'deposit', CASE WHEN id <= $1 THEN 100000000000000 ELSE 1000000000000 END, 'year-' || id, created_at FROM accounts WHERE id > 1`,
    [hotLast],
  );
  await c.query(
    `INSERT INTO expirations (asset, expiry, utc_date, settled, settlement_price, settled_at, created_at)
     SELECT asset, expiry, to_timestamp(expiry)::date, settled, CASE WHEN settled THEN price END, CASE WHEN settled THEN to_timestamp(expiry) END,
            to_timestamp(expiry - 30 * 86400)
       FROM unnest($1::text[], $2::bigint[], $3::boolean[], $4::bigint[]) AS u(asset, expiry, settled, price)`,
    [rounds.map((e) => e.asset), rounds.map((e) => e.expiry), rounds.map((e) => e.settled), rounds.map((e) => settlementPrice(e).toString())],
  );
  await c.query(
    `INSERT INTO instruments (symbol, asset, strike, kind, expiry, settled, settlement_price, created_at)
     SELECT u.symbol, u.asset, u.strike, u.kind, u.expiry, e.settled, e.settlement_price, e.created_at
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[]) AS u(symbol, asset, strike, kind, expiry)
       JOIN expirations e ON e.asset = u.asset AND e.expiry = u.expiry`,
    [list.map((i) => i.symbol), list.map((i) => i.asset), list.map((i) => i.strike.toString()), list.map((i) => i.kind), list.map((i) => i.expiry)],
  );
  const spots = new Map(rounds.map((e) => [e.asset, e.spot]));
  await c.query(`INSERT INTO index_prices (asset, index_price, updated_at) SELECT * , now() FROM unnest($1::text[], $2::bigint[])`, [
    [...spots.keys()],
    [...spots.values()].map(String),
  ]);
  await c.query(
    `INSERT INTO instrument_ivs (symbol, iv, updated_at) SELECT i.symbol, 800000, now() FROM instruments i JOIN expirations e USING (asset, expiry) WHERE NOT e.settled`,
  );
}

/** Leg sets of the open rounds, the unfilled RFQs pick theirs from (a temp table `legsets(k, asset, expiry, legs)`). */
export async function writeLegsets(c: Client, s: Scale, rounds: Expiration[], instrumentsOf: Map<string, YearInstrument[]>): Promise<number> {
  const rand = prng(7);
  const open = rounds.filter((e) => !e.settled);
  const rows: Array<[string, number, string]> = [];
  for (let k = 0; k < 1000; k++) {
    const e = open[k % open.length];
    const list = instrumentsOf.get(`${e.asset} ${e.expiry}`)!;
    const n = 1 + Math.floor(rand() * 4);
    const picked = new Set<number>();
    while (picked.size < n) picked.add(Math.floor(rand() * list.length));
    const legs = [...picked].map((i, j) => ({ instrument: list[i].symbol, quantity: decimal(BigInt((j === 0 ? 1 : -1) * (1 + (i % 5))) * 1_000_000n) }));
    rows.push([e.asset, e.expiry, JSON.stringify(legs)]);
  }
  await c.query(`CREATE TEMP TABLE legsets (k int PRIMARY KEY, asset text, expiry bigint, legs jsonb)`);
  await c.query(
    `INSERT INTO legsets SELECT ord - 1, asset, expiry, legs::jsonb FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS u(asset, expiry, legs, ord)`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
  );
  return rows.length;
}

/**
 * RFQs that ended unfilled, newest first by g, spread over 98% of the retention window: 2/5
 * expired pending, 1/5 declined, 1/5 quoted then expired, 1/5 cancelled. 10% are the first hot
 * taker's, 20% the other hot takers', the rest spread over every plain taker.
 */
export async function writeUnfilled(c: Client, s: Scale, now: number, windowSeconds: number, from: number, to: number): Promise<void> {
  await c.query(
    `INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at,
                       quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature,
                       quote_received_at_ms, decline_reason, declined_by, ended_at, cancelled_at)
     SELECT lpad(to_hex(x.c * 1000 + x.g % 1000), 12, '0') || '7' || substr(x.h, 1, 3) || '9' || substr(x.h, 4, 15),
            x.acct, 'u' || x.g, l.legs, l.asset, l.expiry, CASE WHEN x.kind = 2 THEN 'declined' ELSE 'expired' END,
            x.c, x.e, x.c + 30, least(x.c + 3600, l.expiry),
            CASE WHEN x.kind = 3 THEN x.h || md5('q' || x.g) END, CASE WHEN x.kind = 3 THEN x.mk END,
            CASE WHEN x.kind = 3 THEN (SELECT wallet FROM accounts WHERE id = x.mk) END, CASE WHEN x.kind = 3 THEN 1000000000 + x.g END,
            CASE WHEN x.kind = 3 THEN 1000000 END, CASE WHEN x.kind = 3 THEN 1100000 END, CASE WHEN x.kind = 3 THEN x.c + 1 END,
            CASE WHEN x.kind = 3 THEN x.e END, CASE WHEN x.kind = 3 THEN encode(sha512(x.h::bytea), 'base64') END,
            CASE WHEN x.kind = 3 THEN (x.c + 1) * 1000 END,
            CASE WHEN x.kind = 2 THEN 'size_limit' END, CASE WHEN x.kind = 2 THEN x.mk END, x.e, CASE WHEN x.kind = 4 THEN x.e END
       FROM (SELECT g, e, CASE WHEN kind IN (0, 1, 3) THEN e - 30 ELSE e - 5 END AS c, kind, md5(g::text) AS h,
                    2 + (g / 7) % $4::bigint AS mk,
                    CASE WHEN g % 10 = 0 THEN $5::bigint WHEN g % 10 < 3 THEN $5::bigint + 1 + (g / 10) % ($6::bigint - 1)
                         ELSE $7::bigint + (g * 7919) % ($8::bigint - $7::bigint + 1) END AS acct
               FROM (SELECT g, $2::bigint - ($3::bigint * g) / $1::bigint AS e, g % 5 AS kind FROM generate_series($9::bigint, $10::bigint) g) y) x
       JOIN legsets l ON l.k = (x.g * 31) % 1000`,
    [s.unfilled, now, windowSeconds, s.makers, hotTakerId(s, 0), s.hotTakers, firstPlainTaker(s), s.accounts, from, to],
  );
}

/** The rfq_events of every RFQ whose history is kept (ended within the window): created, quoted, the moves to its end. */
export async function writeRfqEvents(c: Client): Promise<void> {
  await c.query(
    `INSERT INTO rfq_events (rfq_id, event, state, at)
     SELECT r.id, v.ev, v.st, v.at
       FROM rfqs r CROSS JOIN LATERAL (VALUES (1, 'created', 'pending', r.created_at), (2, 'quoted', 'quoted', r.issued_at),
                                             (3, 'accepted', 'accepted', r.filled_at - 1), (4, 'submitting', 'submitting', r.filled_at - 1),
                                             (5, r.state, r.state, r.ended_at)) AS v(n, ev, st, at)
      WHERE r.events_pruned_at IS NULL
        AND (v.n IN (1, 5) OR (v.n = 2 AND r.quote_id IS NOT NULL) OR (v.n IN (3, 4) AND r.state = 'filled'))
      ORDER BY r.ended_at, r.id, v.n`,
  );
}

/** Positions folded from the fills; settled rounds' positions settled with their payments. */
export async function writePositions(c: Client): Promise<void> {
  await c.query(
    `INSERT INTO positions (account_id, instrument, quantity, settled, settlement_amount, avg_num, avg_den, average_price, updated_at)
     SELECT t.account_id, t.instrument, t.q, i.settled,
            CASE WHEN i.settled THEN (t.q * CASE WHEN i.kind = 'call' THEN greatest(0, i.settlement_price - i.strike)
                                                 ELSE greatest(0, i.strike - i.settlement_price) END / 1000000)::bigint END,
            CASE WHEN t.q <> 0 THEN t.paid * 1000000 * sign(t.q) END, CASE WHEN t.q <> 0 THEN abs(t.q) END,
            CASE WHEN t.q <> 0 THEN round(t.paid * 1000000 * sign(t.q) / abs(t.q))::bigint END, to_timestamp(t.last)
       FROM (SELECT account_id, instrument, sum(q)::numeric AS q, sum(paid)::numeric AS paid, max(at) AS last FROM (
               SELECT f.taker_account_id AS account_id, l.instrument, CASE WHEN f.side = 'buy' THEN l.quantity ELSE -l.quantity END AS q,
                      CASE WHEN f.side = 'buy' THEN l.premium ELSE -l.premium END AS paid, f.filled_at AS at
                 FROM fills f JOIN fill_legs l ON l.fill_id = f.id
               UNION ALL
               SELECT f.maker_account_id, l.instrument, CASE WHEN f.side = 'buy' THEN -l.quantity ELSE l.quantity END,
                      CASE WHEN f.side = 'buy' THEN -l.premium ELSE l.premium END, f.filled_at
                 FROM fills f JOIN fill_legs l ON l.fill_id = f.id) x
              GROUP BY account_id, instrument) t
       JOIN instruments i ON i.symbol = t.instrument`,
  );
  await c.query(
    `INSERT INTO settlement_payments (instrument, account_id, quantity, amount, settled_at)
     SELECT p.instrument, p.account_id, p.quantity, p.settlement_amount, to_timestamp(i.expiry)
       FROM positions p JOIN instruments i ON i.symbol = p.instrument WHERE p.settled AND p.quantity <> 0`,
  );
}

/** Balances: deposit + every fill's cash + settlement payments (zero-sum, so the totals equal the deposits). */
export async function writeBalances(c: Client): Promise<void> {
  await c.query(
    `INSERT INTO balances (account_id, total, locked, updated_at)
     SELECT a.id, coalesce(d.amount, 0) + coalesce(m.cash, 0) + coalesce(p.paid, 0), 0, now()
       FROM accounts a
       LEFT JOIN (SELECT account_id, sum(amount) AS amount FROM transfers GROUP BY account_id) d ON d.account_id = a.id
       LEFT JOIN (SELECT account_id, sum(cash) AS cash FROM (
                    SELECT taker_account_id AS account_id, CASE WHEN side = 'buy' THEN -price ELSE price END - fee AS cash FROM fills
                    UNION ALL SELECT maker_account_id, CASE WHEN side = 'buy' THEN price ELSE -price END FROM fills
                    UNION ALL SELECT fee_account_id, fee FROM fills) x GROUP BY account_id) m ON m.account_id = a.id
       LEFT JOIN (SELECT account_id, sum(amount) AS paid FROM settlement_payments GROUP BY account_id) p ON p.account_id = a.id`,
  );
}

/**
 * Account events of the last 7 days: the makers and hot takers 40% of them, every other account
 * the rest; each account's numbers continue a year of pruned ones (account_seq from 51 x n + 1),
 * the snapshots copied from recent unfilled RFQs (as the moves store them).
 */
export async function writeAccountEvents(c: Client, s: Scale, now: number): Promise<void> {
  await c.query(
    `CREATE TEMP TABLE snaps AS
     SELECT (row_number() OVER ()) - 1 AS k, m.state,
            (SELECT jsonb_object_agg(e.key, CASE jsonb_typeof(e.value) WHEN 'number' THEN to_jsonb(e.value #>> '{}') ELSE e.value END)
               FROM jsonb_each(to_jsonb(m)) e) AS rfq
       FROM (SELECT * FROM rfqs WHERE state <> 'filled' ORDER BY ended_at DESC LIMIT 10000) m`,
  );
  const hotLast = hotTakerId(s, s.hotTakers - 1);
  const hot = hotLast - 1;
  const rest = s.accounts - hotLast;
  await c.query(`CREATE TEMP TABLE ev_counts AS SELECT id, CASE WHEN id <= $1 THEN $2::bigint ELSE $3::bigint END AS n FROM accounts WHERE id > 1`, [
    hotLast,
    Math.floor((0.4 * s.accountEvents) / hot),
    Math.floor((0.6 * s.accountEvents) / rest),
  ]);
  const k = (await c.query(`SELECT count(*)::int AS n FROM snaps`)).rows[0].n as number;
  await c.query(
    `INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
     SELECT n.id, 51 * n.n + q, CASE WHEN n.id < $1 THEN 'rfq_maker' ELSE 'rfq' END, sn.state, sn.rfq, $2::bigint - 7 * 86400 + (q * 7 * 86400 * 98) / (100 * n.n)
       FROM ev_counts n CROSS JOIN LATERAL generate_series(1, n.n) q JOIN snaps sn ON sn.k = (n.id * 7919 + q) % $3`,
    [2 + s.makers, now, k],
  );
  await c.query(`INSERT INTO account_event_seqs (account_id, last_seq) SELECT id, 52 * n FROM ev_counts`);
}

/** The makers' nonce high-water marks: the highest nonce each quoted with. */
export async function writeMakerNonces(c: Client): Promise<void> {
  await c.query(
    `INSERT INTO maker_nonces (account_id, high_water)
     SELECT maker_account_id, max(quote_nonce) FROM rfqs WHERE maker_account_id IS NOT NULL GROUP BY maker_account_id`,
  );
}
