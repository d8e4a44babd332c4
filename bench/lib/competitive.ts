import { randomUUID } from 'node:crypto';
import type { Exchange, Leg, Lifecycle, Round, Trader } from './exchange';

/**
 * A competitive RFQ's lifecycle (docs/spec/design.md 18) as a taker and its panel run it:
 * rfq.create with `competition.makers` the panel, every panel maker quotes (at once, each on its
 * own connection; the makers are handed the RFQ id, as F5's maker is), the first maker replaces its
 * quote once with a better one, the taker takes the best live ask (the one its view's `best.ask`
 * names) and waits for `filled`; the other quotes end `traded_away` in the accept's transaction.
 */

/** Makers per competitive RFQ. */
export const PANEL = 5;

/** Maker `i`'s first quote; the replace of maker 0 then improves both sides, so it is the best ask. */
const firstQuote = (i: number) => ({ bid: (1.5 - 0.01 * i).toFixed(2), ask: (2.25 + 0.01 * i).toFixed(2) });
const REPLACE = { bid: '1.55', ask: '2.2' };

export async function competitiveLifecycle(ex: Exchange, taker: Trader, panel: Trader[], round: Round, legs: Leg[], quoteLifetime: number): Promise<Lifecycle> {
  const t0 = performance.now();
  const clientRef = randomUUID();
  const rfq = await taker.rpc.result('rfq.create', { client_ref: clientRef, legs, competition: { makers: panel.map((m) => m.wallet) } });
  const first = await Promise.all(
    panel.map((maker, i) => {
      const q = firstQuote(i);
      return maker.rpc.result('rfq.maker.respond', ex.quote(maker, round, rfq.rfq_id, legs, quoteLifetime, q.bid, q.ask));
    }),
  );
  if (first.some((r) => typeof r?.quote_id !== 'string')) throw new Error(`a panel quote was refused: ${JSON.stringify(first)}`);
  const better = ex.quote(panel[0], round, rfq.rfq_id, legs, quoteLifetime, REPLACE.bid, REPLACE.ask);
  const replaced = await panel[0].rpc.result('rfq.maker.respond', better);
  const done = taker.until(rfq.rfq_id, ['filled', 'failed']);
  const params = ex.accept(taker, rfq.rfq_id, replaced.quote_id, 'buy', better.expires_at);
  const acceptSentAt = Date.now();
  let accepted: { best?: boolean };
  try {
    accepted = await taker.rpc.result('rfq.accept', params);
  } catch (error) {
    done.catch(() => undefined);
    throw error;
  }
  const acceptReplyAt = Date.now();
  // The replace made it the lowest live ask: an accept the exchange does not call best is a wrong run.
  if (accepted.best !== true) {
    done.catch(() => undefined);
    throw new Error(`rfq ${rfq.rfq_id}: the accepted quote was not the best (${JSON.stringify(accepted)})`);
  }
  const end = await done;
  if (end.data.event !== 'filled') throw new Error(`rfq ${rfq.rfq_id} ${end.data.event}: ${JSON.stringify(end.data.rfq?.failure)}`);
  return {
    rfqId: rfq.rfq_id,
    quoteId: replaced.quote_id,
    clientRef,
    quoteNonce: better.quote_nonce,
    ms: performance.now() - t0,
    acceptSentAt,
    acceptReplyAt,
    filledAt: end.at,
  };
}
