/**
 * Enumerations of the interface as values (for checks and usage text); the server's own lists
 * (src/modules/rfq/domain/rfq-state.ts) are compared with these by its tests.
 */

/** RFQ states (docs/spec/interface.md 2.1). */
export const RFQ_STATES = ['pending', 'quoted', 'accepted', 'submitting', 'filled', 'declined', 'expired', 'failed'] as const;
