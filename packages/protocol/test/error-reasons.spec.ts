import { RFQ_ERROR_CODES, RFQ_ERROR_REASONS, RFQ_REASONS } from '../src';

/** docs/spec/design.md section 19: every RFQ code has its reasons, each a snake_case word of one code only. */
describe('RFQ error reasons', () => {
  it('declares reasons for every code, each snake_case and belonging to one code', () => {
    expect(Object.keys(RFQ_ERROR_REASONS).sort()).toEqual([...RFQ_ERROR_CODES].sort());
    for (const code of RFQ_ERROR_CODES) expect(RFQ_ERROR_REASONS[code].length).toBeGreaterThan(0);
    for (const reason of RFQ_REASONS) expect(reason).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(RFQ_REASONS).size).toBe(RFQ_REASONS.length);
  });

  it('holds the reasons the contract names', () => {
    expect(RFQ_ERROR_REASONS.RFQ_STATE_CONFLICT).toEqual(
      expect.arrayContaining(['quoted_by_another', 'rfq_ended', 'nonce_not_increasing', 'already_accepted', 'replay_running']),
    );
    expect(RFQ_ERROR_REASONS.RFQ_OPEN_LIMIT).toEqual(
      expect.arrayContaining(['max_open_quotes', 'max_open_notional', 'max_open_delta', 'max_open_vega', 'kill_switch', 'maker_protection']),
    );
    expect(RFQ_ERROR_REASONS.RFQ_QUOTE_EXPIRED).toEqual(expect.arrayContaining(['quote_expired', 'quote_replaced', 'quote_cancelled', 'quote_traded_away']));
  });
});
