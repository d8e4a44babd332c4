/**
 * The enumerations of the wire the console shows, from the contract of @legwork/protocol (its
 * enums file imports nothing, so the bundle takes only these lists, and no Node built-in).
 */
export { RFQ_STATES, ROLES } from '../../packages/protocol/src/contract/enums';
