import { type ExchangeKeyInfo, type MethodResult, type SignedTranscript, type View, verifyTranscript } from '@legwork/protocol';

/**
 * Competitive RFQs as the desk pages show them (docs/spec/design.md 18): the taker's RFQ view with
 * its live quotes and best, the signed transcript once the competition has ended, and the makers'
 * directory and stats. The transcript is checked in the browser as receipts are (receipts.ts):
 * `@legwork/protocol`'s check against a key the exchange publishes, trusting nothing else the
 * server says about it.
 */

/** The taker's view of an RFQ, with a competitive RFQ's live quotes and best. */
export type RfqView = View<'RfqView'>;
export type MakerStats = View<'MakerStats'>;
export type DirectoryMaker = View<'DirectoryMaker'>;
export type MakerProfile = MethodResult<'rfq.maker.set_profile'>;

/** States in which the competition still runs: quotes are live and there is no transcript yet. */
const RUNNING = new Set(['pending', 'quoted']);
export const competitionRunning = (rfq: RfqView) => RUNNING.has(rfq.state);

/** What marks a live quote: best bid, best ask, both, or nothing. */
export function bestMarks(rfq: RfqView, quoteId: string): string[] {
  const marks: string[] = [];
  if (rfq.best?.bid === quoteId) marks.push('best bid');
  if (rfq.best?.ask === quoteId) marks.push('best ask');
  return marks;
}

/** The transcript's verdict: null when it verifies under one of the exchange's keys, else why not. */
export function checkTranscript(signed: SignedTranscript, keys: ExchangeKeyInfo[]): string | null {
  try {
    const check = verifyTranscript(signed, keys);
    return check.ok ? null : `${check.fault}: ${check.problem}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The profile form's change: only the fields the maker changed (an absent field keeps its value). */
export function profileChange(current: MakerProfile | null, listed: boolean, name: string): { listed?: boolean; name?: string } {
  const change: { listed?: boolean; name?: string } = {};
  if (current?.listed !== listed) change.listed = listed;
  const trimmed = name.trim();
  if (trimmed !== '' && trimmed !== (current?.name ?? '')) change.name = trimmed;
  return change;
}

export const shortWallet = (wallet: string) => (wallet.length > 12 ? `${wallet.slice(0, 6)}…${wallet.slice(-4)}` : wallet);
