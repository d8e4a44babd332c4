/**
 * How many asks a run of the appender gathers before it reads, under load (docs/receipts.md,
 * "Gathering"). A batch's hold of the journal head is its commit, the WAL flush, and every receipt
 * of the batch shares it; so a run waits until enough fills have asked that each pays at most
 * SHARE_MS of the recent hold, or until MAX_MS have passed (an ask never waits longer for others).
 * Where a commit takes 0.5 ms under load that is one ask (a run reads at once); 1 ms, two; 1.5 ms, three.
 */
export const GATHER = {
  /** The share of a batch's hold each of its fills may pay. */
  SHARE_MS: 0.5,
  /** The most a run gathers for. */
  MAX_MS: 32,
  /** The most asks a run waits for (a slow commit, say a stalled disk, must not make every run wait MAX_MS). */
  MAX_ASKS: 8,
  /** The weight of the last batch's hold in the running estimate. */
  WEIGHT: 0.2,
} as const;

/** The running estimate of a batch's hold and the asks a gathering run waits for. */
export class GatherPolicy {
  /** A batch's hold, ms: an exponentially weighted mean of the observed ones (one ms before any). */
  private holdMs = 1;

  /** A batch held the head for `ms` (its UPDATE to its commit's end). */
  observeHold(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.holdMs += GATHER.WEIGHT * (ms - this.holdMs);
  }

  /** The asks a run under load gathers before it reads: at least one, at most MAX_ASKS. */
  get asks(): number {
    return Math.min(GATHER.MAX_ASKS, Math.max(1, Math.ceil(this.holdMs / GATHER.SHARE_MS)));
  }
}
