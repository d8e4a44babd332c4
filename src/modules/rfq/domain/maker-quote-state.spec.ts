import { competitiveQuoteState, mergeNewestFirst } from './maker-quote-state';

describe('competitiveQuoteState (design.md 19)', () => {
  it('live until it ends or passes its expires_at; the accepted one follows its RFQ; any other end is its name', () => {
    expect(competitiveQuoteState(null, undefined, 101, 100)).toBe('live');
    expect(competitiveQuoteState(null, undefined, 100, 100)).toBe('expired');
    expect(competitiveQuoteState('accepted', 'accepted', 50, 100)).toBe('accepted');
    expect(competitiveQuoteState('accepted', 'submitting', 50, 100)).toBe('accepted');
    expect(competitiveQuoteState('accepted', 'filled', 50, 100)).toBe('filled');
    expect(competitiveQuoteState('accepted', 'failed', 50, 100)).toBe('failed');
    for (const end of ['replaced', 'cancelled', 'traded_away', 'expired'] as const) expect(competitiveQuoteState(end, 'filled', 500, 100)).toBe(end);
  });
});

describe('mergeNewestFirst', () => {
  const q = (received_at_ms: number, quote_id: string) => ({ received_at_ms, quote_id });

  it('merges two newest-first pages by (received_at_ms, quote_id) and cuts to the limit', () => {
    const seed = [q(9, 'a'), q(5, 'c'), q(5, 'a'), q(1, 'z')];
    const competitive = [q(7, 'b'), q(5, 'b'), q(0, 'y')];
    expect(mergeNewestFirst(seed, competitive, 10)).toEqual([q(9, 'a'), q(7, 'b'), q(5, 'c'), q(5, 'b'), q(5, 'a'), q(1, 'z'), q(0, 'y')]);
    expect(mergeNewestFirst(seed, competitive, 3)).toEqual([q(9, 'a'), q(7, 'b'), q(5, 'c')]);
    expect(mergeNewestFirst([], competitive, 2)).toEqual(competitive.slice(0, 2));
    expect(mergeNewestFirst(seed, [], 10)).toEqual(seed);
  });
});
