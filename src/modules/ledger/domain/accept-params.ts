import type { AcceptSide } from './funding';

/** rfq.accept as the service takes it: the params parsed by its declaration (packages/protocol/src/contract/methods-rfq.ts). */
export interface AcceptCommand {
  quoteId: string;
  side: AcceptSide;
  /** Unix seconds. */
  expiresAt: number;
  takerSignature: string;
}
