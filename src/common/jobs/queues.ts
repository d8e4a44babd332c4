/**
 * Every queue of the exchange. NEVER RENAME one: names are stored in Redis with their jobs, and a
 * renamed queue strands the jobs of the old name. Payloads are typed here too.
 */
export const QUEUES = {
  /** An RFQ's or a quote's deadline passed: expire it if it is still pending or quoted. */
  rfqExpiry: 'rfq-expiry',
  /** Fill an accepted RFQ in the ledger. */
  rfqFill: 'rfq-fill',
  /** Settle an expiration round at its expiry. */
  settlement: 'settlement',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface JobPayloads {
  'rfq-expiry': { rfqId: string };
  'rfq-fill': { rfqId: string };
  settlement: { asset: string; expiration: number };
}

/** Deterministic job ids (BullMQ refuses ':' in custom ids, hence '-'). */
export const jobIds = {
  rfqExpiry: (rfqId: string, deadline: number) => `expire-${rfqId}-${deadline}`,
  rfqFill: (rfqId: string) => `fill-${rfqId}`,
  settlement: (asset: string, expiration: number) => `settle-${asset}-${expiration}`,
};
