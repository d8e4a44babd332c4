/** The enumerations and bounds of the wire (docs/spec/interface.md 2, docs/spec/design.md 2 to 5), shared by the server and every client. */

/** RFQ states (docs/spec/interface.md 2.1). */
export const RFQ_STATES = ['pending', 'quoted', 'accepted', 'submitting', 'filled', 'declined', 'expired', 'failed'] as const;
export type RfqState = (typeof RFQ_STATES)[number];
export const isRfqState = (value: unknown): value is RfqState => typeof value === 'string' && (RFQ_STATES as readonly string[]).includes(value);

/** The side a taker accepts: `buy` pays the ask, `sell` receives the bid. */
export const SIDES = ['buy', 'sell'] as const;
export type Side = (typeof SIDES)[number];

export const OPTION_KINDS = ['call', 'put'] as const;
export type OptionKind = (typeof OPTION_KINDS)[number];

/** Reasons a quoter may give to `rfq.maker.decline`. */
export const DECLINE_REASONS = ['unlisted_instrument', 'near_expiry', 'size_limit', 'stale_data', 'low_confidence', 'queue_overflow'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** Roles of an account (docs/spec/design.md 3). */
export const ROLES = ['taker', 'quoter', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The notification channels a method subscribes to (`session` needs no subscription). */
export const SUBSCRIPTION_CHANNELS = ['rfq', 'rfq_maker'] as const;
export type SubscriptionChannel = (typeof SUBSCRIPTION_CHANNELS)[number];

/** An asset: 2 to 8 upper-case letters and digits, a letter first. */
export const ASSET_PATTERN = /^[A-Z][A-Z0-9]{1,7}$/;
/** At most this many strikes in one create-instruments command (each gives two instruments). */
export const MAX_STRIKES = 500;
/** Expiries are before 2100-01-01 (unix seconds). */
export const MAX_EXPIRY = 4_102_444_800;
/** Page size of rfq.list and rfq.maker.poll: the default and the most. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 100;
/** Legs of an RFQ at most (the quote payload's MAX_LEGS is this one). */
export const MAX_RFQ_LEGS = 13;
