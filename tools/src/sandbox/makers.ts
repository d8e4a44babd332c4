/**
 * The sandbox's three reference makers (tools/src/maker, in-process), each with its own account,
 * spread and behaviour, so that a desk's client meets more than one way of quoting:
 *
 * - Aster: tight (80 bps) and short-lived quotes (10 s), so its prices follow the marks as they
 *   move; on a competitive RFQ it is the one that replaces its quote when the marks move.
 * - Birch: wide (300 bps), quotes everything for 30 s.
 * - Cedar: 150 bps, but only up to 2 legs and 50 contracts a leg: it declines the rest.
 *
 * Today's RFQs are section 5's: the first maker to answer wins. Each maker waits a random 50 to
 * 450 ms before answering, so the winner varies from one RFQ to the next. Cedar waits 1.5 s
 * before a decline: on a seed RFQ the first decline ends it, and a decline should not take from
 * the taker a price another maker gives.
 *
 * COMPETITION (design.md section 18): when the exchange has competitive RFQs, `thinkMs` already
 * answers at once on an RFQ marked `competitive` (a decline there leaves it to the others); what
 * remains is to pass each profile's `compete` to ReferenceMaker once it takes one (the reference
 * maker's `--compete`: replace on a mark move, cancel on stale data). The makers list themselves
 * in the directory (`rfq.maker.set_profile`) as soon as the exchange has it.
 */
import { type Keypair, LegworkClient, LegworkRpcError, MICRO, type OpenRfq } from '@legwork/sdk';
import { type LogLine, logger, reason, wsUrlOf } from '../common';
import { ReferenceMaker } from '../maker/market-maker';
import type { PricingPolicy } from '../maker/pricing';

interface MakerProfile {
  /** The directory name (1 to 40 printable characters). */
  name: string;
  /** What the log line at start says of it. */
  style: string;
  policy: Partial<PricingPolicy>;
  /** Seed RFQs only: how long it waits before a decline (the first decline ends a seed RFQ). */
  declineAfterMs: number;
  /** For competitive quoting: replace the live quote when the package mid moves by more than this. */
  compete: { replaceOnMoveBps: number | null };
}

const PROFILES: readonly MakerProfile[] = [
  {
    name: 'Aster (tight, follows the marks)',
    style: '80 bps, quotes live 10 s',
    policy: { spreadBps: 80, quoteLifetimeSeconds: 10 },
    declineAfterMs: 0,
    compete: { replaceOnMoveBps: 10 },
  },
  {
    name: 'Birch (wide)',
    style: '300 bps, quotes live 30 s',
    policy: { spreadBps: 300, quoteLifetimeSeconds: 30 },
    declineAfterMs: 0,
    compete: { replaceOnMoveBps: null },
  },
  {
    name: 'Cedar (selective)',
    style: '150 bps, at most 2 legs and 50 contracts a leg, declines the rest',
    policy: { spreadBps: 150, quoteLifetimeSeconds: 20, maxLegs: 2, maxLegSize: 50n * MICRO },
    declineAfterMs: 1_500,
    compete: { replaceOnMoveBps: null },
  },
];

/** How long a maker waits before answering: a random 50 to 450 ms, none on a competitive RFQ. */
function thinkFor(profile: MakerProfile): (action: 'quote' | 'decline', rfq: OpenRfq) => number {
  return (action, rfq) => {
    if ((rfq as OpenRfq & { competitive?: boolean }).competitive) return 0;
    return action === 'decline' ? profile.declineAfterMs : 50 + Math.floor(Math.random() * 400);
  };
}

/** Lists the maker in the directory when the exchange has one (section 18); says so when not. */
async function list(url: string, keypair: Keypair, name: string, log: LogLine): Promise<void> {
  const client = await LegworkClient.connect(wsUrlOf(url));
  try {
    await client.signIn(keypair);
    await client.call('rfq.maker.set_profile', { listed: true, name });
    log(`listed in the maker directory as "${name}"`);
  } catch (error) {
    // Never fatal: the market works without the directory.
    log(error instanceof LegworkRpcError && error.code === -32601 ? 'not listed: this exchange has no maker directory yet' : `not listed: ${reason(error)}`);
  } finally {
    await client.close();
  }
}

/** Starts one maker per profile on the given accounts (same order), all at once. */
export async function startMakers(url: string, keypairs: readonly Keypair[]): Promise<ReferenceMaker[]> {
  const makers = PROFILES.map((profile, i) => {
    const log = logger(profile.name.split(' ')[0].toLowerCase());
    return { profile, log, maker: new ReferenceMaker({ url, keypair: keypairs[i], log, policy: profile.policy, thinkMs: thinkFor(profile) }) };
  });
  const started = await Promise.allSettled(
    makers.map(async ({ profile, log, maker }, i) => {
      await maker.start();
      log(`${profile.style} (wallet ${maker.wallet})`);
      await list(url, keypairs[i], profile.name, log);
    }),
  );
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(makers.map(({ maker }) => maker.stop()));
    throw failed.reason;
  }
  return makers.map(({ maker }) => maker);
}
