import { uuidV7Hex } from '../rfq/domain/uuid-v7';
import { uuidV7Floor } from './console-reads.service';

describe('uuidV7Floor: the day window of the overview is a range of RFQ ids', () => {
  it('sorts at or before every id of its millisecond and after every id of the one before', () => {
    const ms = Date.UTC(2026, 10, 24, 9, 0, 0, 123);
    const max = (1n << 74n) - 1n; // every random bit set
    expect(uuidV7Floor(ms) <= uuidV7Hex(ms, 0n)).toBe(true);
    expect(uuidV7Floor(ms) <= uuidV7Hex(ms, max)).toBe(true);
    expect(uuidV7Hex(ms - 1, max) < uuidV7Floor(ms)).toBe(true);
    expect(uuidV7Floor(ms)).toMatch(/^[0-9a-f]{32}$/);
  });
});
