/**
 * Every queue of the exchange. NEVER RENAME one: names are stored in Redis with their jobs, and a
 * renamed queue strands the jobs of the old name. Payloads are typed here too.
 */
export const QUEUES = {
  /**
   * A deadline (unix second) has come: expire every pending or quoted RFQ due by then. (Jobs of
   * earlier versions name one RFQ: `{ rfqId }`; they are still run.)
   */
  rfqExpiry: 'rfq-expiry',
  /** Fill an accepted RFQ in the ledger. */
  rfqFill: 'rfq-fill',
  /** Settle an expiration round at its expiry. */
  settlement: 'settlement',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface JobPayloads {
  'rfq-expiry': { deadline: number } | { rfqId: string };
  'rfq-fill': { rfqId: string };
  settlement: { asset: string; expiration: number };
}

/** Deterministic job ids (BullMQ refuses ':' in custom ids, hence '-'). */
export const jobIds = {
  /** One job per deadline second, whatever the number of RFQs and quotes due then (every instance adds the same id). */
  rfqExpiry: (deadline: number) => `expire-at-${deadline}`,
  rfqFill: (rfqId: string) => `fill-${rfqId}`,
  settlement: (asset: string, expiration: number) => `settle-${asset}-${expiration}`,
};
