import { ENDED_STATES, OPEN_STATES, RFQ_MOVES, RFQ_STATES, type RfqState, canMove, isEnded, isRfqState } from './rfq-state';

describe('RFQ state table (design.md section 5)', () => {
  const allowed: Array<[RfqState, RfqState]> = [
    ['pending', 'quoted'],
    ['pending', 'declined'],
    ['pending', 'expired'],
    ['quoted', 'accepted'],
    ['quoted', 'expired'],
    // Competitive RFQs (design.md section 18).
    ['quoted', 'pending'],
    ['quoted', 'declined'],
    ['accepted', 'submitting'],
    ['accepted', 'failed'],
    ['submitting', 'filled'],
    ['submitting', 'failed'],
    ['filled', 'failed'],
  ];

  it.each(allowed)('allows %s → %s', (from, to) => {
    expect(canMove(from, to)).toBe(true);
  });

  it('allows nothing else', () => {
    const key = (from: string, to: string) => `${from}>${to}`;
    const yes = new Set(allowed.map(([f, t]) => key(f, t)));
    for (const from of RFQ_STATES) {
      for (const to of RFQ_STATES) expect([from, to, canMove(from, to)]).toEqual([from, to, yes.has(key(from, to))]);
    }
  });

  it('has a row for every state and names only states', () => {
    expect(Object.keys(RFQ_MOVES).sort()).toEqual([...RFQ_STATES].sort());
    for (const moves of Object.values(RFQ_MOVES)) for (const to of Object.keys(moves)) expect(isRfqState(to)).toBe(true);
  });

  it('ends in declined, expired and failed for good', () => {
    for (const state of ['declined', 'expired', 'failed'] as const) expect(RFQ_STATES.filter((to) => canMove(state, to))).toEqual([]);
  });

  it('counts pending to submitting as open (MAX_OPEN_RFQS) and the rest as ended', () => {
    expect(OPEN_STATES).toEqual(['pending', 'quoted', 'accepted', 'submitting']);
    expect([...ENDED_STATES].sort()).toEqual(['declined', 'expired', 'failed', 'filled']);
    for (const state of RFQ_STATES) expect(OPEN_STATES.includes(state) !== isEnded(state)).toBe(true);
  });

  it('knows its states', () => {
    expect(isRfqState('quoted')).toBe(true);
    expect(isRfqState('QUOTED')).toBe(false);
    expect(isRfqState(1)).toBe(false);
  });
});
