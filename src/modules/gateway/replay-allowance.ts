import type { ReplayTicket } from '../../common/rpc/event-source';

/**
 * The events one replay may still send, leased from its ticket's budgets (docs/spec/design.md
 * section 20). A lease of the account's budget is a Redis round trip: the next page's lease is
 * asked while the current page goes out (`ahead`), so the replay does not wait for it between
 * pages. Nothing goes out that was not granted; at most one lease is on its way at a time, so a
 * replay holds at most what it sends now and the next page's share.
 */
export class ReplayAllowance {
  /** Granted and not sent yet. */
  private left = 0;
  /** A lease asked ahead and not taken in yet. */
  private next: Promise<number> | null = null;

  constructor(private readonly ticket: ReplayTicket) {}

  /** Asks for `want` more events ahead of their use, unless a lease is already on its way. */
  ahead(want: number): void {
    if (this.next || want < 1) return;
    this.next = this.ticket.grant(want);
    // Taken in by `take`; a replay that stops first leaves it unused (its tokens spent, never sent).
    this.next.catch(() => undefined);
  }

  /**
   * How many events may go out now, 1 to `most`: from what is left of the leases, else from the
   * one on its way, else from a new lease of `want` (the rest of the page). 0 when the ticket no
   * longer grants (it was released: the replay is over).
   */
  async take(most: number, want: number): Promise<number> {
    while (this.left === 0) {
      const lease = this.next ?? this.ticket.grant(want);
      this.next = null;
      const granted = await lease;
      if (granted < 1) return 0;
      this.left = granted;
    }
    return Math.min(most, this.left);
  }

  /** `count` events (at most what `take` answered) went out. */
  spend(count: number): void {
    this.left -= count;
  }
}
