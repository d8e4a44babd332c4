import type { AcceptSide } from './funding';

/** The sides a taker may accept (the wire's `Side`). */
export const ACCEPT_SIDES = ['buy', 'sell'] as const satisfies readonly AcceptSide[];

/** rfq.accept as the service takes it: the params parsed by its declaration (accept.schemas.ts). */
export interface AcceptCommand {
  quoteId: string;
  side: AcceptSide;
  /** Unix seconds. */
  expiresAt: number;
  takerSignature: string;
}
