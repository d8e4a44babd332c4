/**
 * The sandbox's three reference makers (tools/src/maker, in-process), each with its own account,
 * spread and behaviour, listed in the maker directory under its name (`rfq.maker.set_profile`
 * at start), so that a desk's client meets more than one way of quoting:
 *
 * - Aster: tight (80 bps) and short-lived quotes (10 s); on a competitive RFQ it replaces its
 *   live quote whenever the package mid moves more than 10 bps, and quotes again when it expires.
 * - Birch: wide (300 bps), quotes everything for 30 s.
 * - Cedar: 150 bps, but only up to 2 legs and 50 contracts a leg: it declines the rest.
 *
 * Competitive RFQs (design.md section 18): the three compete (`compete`: each quotes at once,
 * withdraws its live quotes when the index is older than 10 s), so a taker sees up to three live
 * quotes and takes the best; Cedar's decline there leaves the RFQ to the others.
 *
 * Seed RFQs (section 5): the first maker to answer wins. Each maker waits a random 50 to 450 ms
 * before answering, so the winner varies from one RFQ to the next. Cedar waits 1.5 s before a
 * decline: on a seed RFQ the first decline ends it, and a decline should not take from the taker
 * a price another maker gives.
 */
import { type Keypair, MICRO } from '@legwork/sdk';
import { logger } from '../common';
import type { CompeteOptions } from '../maker/competing';
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
  /** Competitive RFQs: replace the live quote when the package mid moves by more than this; withdraw it on stale data. */
  compete: CompeteOptions;
}

const PROFILES: readonly MakerProfile[] = [
  {
    name: 'Aster (tight, follows the marks)',
    style: '80 bps, quotes live 10 s',
    policy: { spreadBps: 80, quoteLifetimeSeconds: 10 },
    declineAfterMs: 0,
    compete: { replaceOnMoveBps: 10, maxDataAgeSeconds: 10 },
  },
  {
    name: 'Birch (wide)',
    style: '300 bps, quotes live 30 s',
    policy: { spreadBps: 300, quoteLifetimeSeconds: 30 },
    declineAfterMs: 0,
    compete: { replaceOnMoveBps: null, maxDataAgeSeconds: 10 },
  },
  {
    name: 'Cedar (selective)',
    style: '150 bps, at most 2 legs and 50 contracts a leg, declines the rest',
    policy: { spreadBps: 150, quoteLifetimeSeconds: 20, maxLegs: 2, maxLegSize: 50n * MICRO },
    declineAfterMs: 1_500,
    compete: { replaceOnMoveBps: null, maxDataAgeSeconds: 10 },
  },
];

/** How long a maker waits before answering a seed RFQ: a random 50 to 450 ms (a competitive one it answers at once). */
function thinkFor(profile: MakerProfile): (action: 'quote' | 'decline') => number {
  return (action) => (action === 'decline' ? profile.declineAfterMs : 50 + Math.floor(Math.random() * 400));
}

/** Starts one maker per profile on the given accounts (same order), all at once. */
export async function startMakers(url: string, keypairs: readonly Keypair[]): Promise<ReferenceMaker[]> {
  const makers = PROFILES.map((profile, i) => {
    const log = logger(profile.name.split(' ')[0].toLowerCase());
    const { policy, compete, name } = profile;
    return {
      profile,
      log,
      maker: new ReferenceMaker({ url, keypair: keypairs[i], log, policy, thinkMs: thinkFor(profile), compete, profile: { listed: true, name } }),
    };
  });
  const started = await Promise.allSettled(
    makers.map(async ({ profile, log, maker }) => {
      await maker.start();
      log(`${profile.style} (wallet ${maker.wallet})`);
    }),
  );
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(makers.map(({ maker }) => maker.stop()));
    throw failed.reason;
  }
  return makers.map(({ maker }) => maker);
}
