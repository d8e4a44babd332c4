/** Enumerations of the interface as values (for checks and usage text): the contract's own, from `@legwork/protocol`. */
export { DECLINE_REASONS, OPTION_KINDS, RFQ_ERROR_CODES, RFQ_STATES, ROLES, SIDES } from '@legwork/protocol';
