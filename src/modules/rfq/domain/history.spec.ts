import { MAX_BATCH_ROWS, MIN_BATCH_ROWS, historyCutoff, historySeconds, nextBatchRows, retentionLag } from './history';

describe('RFQ history retention', () => {
  it('turns RFQ_HISTORY_DAYS into whole seconds, at least one', () => {
    expect(historySeconds(30)).toBe(30 * 86_400);
    expect(historySeconds(0.5)).toBe(43_200);
    expect(historySeconds(3 / 86_400)).toBe(3);
    expect(historySeconds(1e-9)).toBe(1);
  });

  it('is due when the RFQ ended RFQ_HISTORY_DAYS ago or more (ended_at < cutoff)', () => {
    const now = 1_800_000_000;
    const cutoff = historyCutoff(now, 30);
    expect(cutoff).toBe(now - 30 * 86_400);
    const ended = now - 30 * 86_400; // exactly 30 days ago: kept this second, due the next
    expect(ended < cutoff).toBe(false);
    expect(ended < historyCutoff(now + 1, 30)).toBe(true);
    expect(historyCutoff(now, 2 / 86_400)).toBe(now - 2);
  });

  it('the lag is the age past retention of the oldest row of any kind, 0 when all are within it', () => {
    const now = 10_000;
    expect(retentionLag(now, [])).toBe(0);
    expect(retentionLag(now, [{ at: null, keepSeconds: 100 }])).toBe(0);
    expect(retentionLag(now, [{ at: now - 50, keepSeconds: 100 }])).toBe(0);
    expect(retentionLag(now, [{ at: now - 100, keepSeconds: 100 }])).toBe(0);
    expect(
      retentionLag(now, [
        { at: now - 130, keepSeconds: 100 },
        { at: now - 1_000, keepSeconds: 950 },
        { at: null, keepSeconds: 1 },
      ]),
    ).toBe(50);
  });

  it('sizes statements to stay short: halves a slow one, doubles a quick one, within the bounds', () => {
    expect(nextBatchRows(1_000, 200)).toBe(500);
    expect(nextBatchRows(MIN_BATCH_ROWS, 1_000)).toBe(MIN_BATCH_ROWS);
    expect(nextBatchRows(1_000, 1)).toBe(2_000);
    expect(nextBatchRows(4_000, 1)).toBe(MAX_BATCH_ROWS);
    expect(nextBatchRows(MAX_BATCH_ROWS, 0)).toBe(MAX_BATCH_ROWS);
    expect(nextBatchRows(1_000, 5)).toBe(1_000);
    expect(nextBatchRows(1_000, 20)).toBe(500);
  });
});
