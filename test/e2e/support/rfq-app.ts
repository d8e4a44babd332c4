import { Environment, type TestApp } from '../harness';
import { type RfqTrader, type Round, expirationIn, listRound, rfqTrader } from '../rfq-support';

/**
 * The app of rfq.e2e-spec.ts and rfq-errors.e2e-spec.ts, each booting its own: SOL listed twice (a
 * round to trade, a later one to pause or mix in), BTC listed; a taker, two quoters and an account
 * with both roles, every one subscribed to its channels (the last to both).
 */
export interface RfqApp {
  env: Environment;
  app: TestApp;
  sol: Round;
  solLater: Round;
  btc: Round;
  taker: RfqTrader;
  q1: RfqTrader;
  q2: RfqTrader;
  both: RfqTrader;
}

export async function startRfqApp(): Promise<RfqApp> {
  const env = await Environment.create();
  const app = await env.start();
  const sol = await listRound(app, 'SOL', expirationIn(10));
  const solLater = await listRound(app, 'SOL', expirationIn(11));
  const btc = await listRound(app, 'BTC', expirationIn(10));
  const [taker, q1, q2, both] = await Promise.all([
    rfqTrader(app, ['taker']),
    rfqTrader(app, ['quoter']),
    rfqTrader(app, ['quoter']),
    rfqTrader(app, ['taker', 'quoter']),
  ]);
  await taker.client.result('rfq.subscribe', {});
  await q1.client.result('rfq.maker.subscribe', {});
  await q2.client.result('rfq.maker.subscribe', {});
  await both.client.result('rfq.maker.subscribe', {});
  await both.client.result('rfq.subscribe', {});
  return { env, app, sol, solLater, btc, taker, q1, q2, both };
}
