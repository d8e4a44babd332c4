/** A leg as the limits sum it: an instrument and its signed quantity. */
export interface QuotedLeg {
  instrument: string;
  quantity: bigint;
}

/**
 * What the limits read of an RFQ a maker quotes: its id, underlying and legs. The rfq module's
 * RfqRecord is one; the limits sit below it and name only what they read.
 */
export interface QuotedRfq {
  id: string;
  asset: string;
  legs: readonly QuotedLeg[];
}

/** A filled RFQ as the protection after a fill reads it: the maker of its quote and when it filled. */
export interface FilledRfq extends QuotedRfq {
  quote: { makerAccountId: number } | null;
  fill: { filledAt: number } | null;
}
