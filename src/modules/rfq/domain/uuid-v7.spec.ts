import { randomBytes } from 'node:crypto';
import { UuidV7Generator, uuidV7Hex, uuidV7Time } from './uuid-v7';

describe('UUIDv7', () => {
  it('lays out time, version and variant (RFC 9562 appendix A.6 example)', () => {
    // 017F22E2-79B0-7CC3-98C4-DC0C0C07398F: ms 0x017F22E279B0, rand_a 0xCC3, rand_b 0x18C4DC0C0C07398F.
    const random = (0xcc3n << 62n) | 0x18c4dc0c0c07398fn;
    expect(uuidV7Hex(0x017f22e279b0, random)).toBe('017f22e279b07cc398c4dc0c0c07398f');
  });

  it('is 32 lowercase hex characters with version 7 and variant 10', () => {
    const id = new UuidV7Generator(randomBytes).next(Date.now());
    expect(id).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });

  it('gives back its time', () => {
    expect(uuidV7Time(uuidV7Hex(1_795_000_000_123, 0n))).toBe(1_795_000_000_123);
  });

  it('refuses what does not fit', () => {
    expect(() => uuidV7Hex(-1, 0n)).toThrow(RangeError);
    expect(() => uuidV7Hex(2 ** 48, 0n)).toThrow(RangeError);
    expect(() => uuidV7Hex(1.5, 0n)).toThrow(RangeError);
    expect(() => uuidV7Hex(0, 1n << 74n)).toThrow(RangeError);
    expect(() => uuidV7Hex(0, -1n)).toThrow(RangeError);
  });

  it('strictly increases within one millisecond and when the clock steps back', () => {
    const gen = new UuidV7Generator(randomBytes);
    const ids = [gen.next(1000), gen.next(1000), gen.next(1000), gen.next(999), gen.next(1001), gen.next(1001)];
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(uuidV7Time(ids[3])).toBe(1000);
    expect(uuidV7Time(ids[4])).toBe(1001);
  });

  it('sorts by creation time across milliseconds', () => {
    const gen = new UuidV7Generator(randomBytes);
    const ids = Array.from({ length: 1000 }, (_, i) => gen.next(1_700_000_000_000 + Math.floor(i / 10)));
    expect([...ids].sort()).toEqual(ids);
  });

  it('moves to the next millisecond when the counter would overflow', () => {
    const gen = new UuidV7Generator((size) => new Uint8Array(size).fill(0xff));
    const first = gen.next(5); // random field: 2^73 - 1
    // Each step adds 1 + 255; 2^73 more steps are impossible to run, so check the carry directly.
    (gen as any).lastRandom = (1n << 74n) - 2n;
    const last = gen.next(5);
    expect(uuidV7Time(last)).toBe(6);
    expect(last > first).toBe(true);
  });

  it('uses the randomness it is given', () => {
    const a = new UuidV7Generator(randomBytes).next(42);
    const b = new UuidV7Generator(randomBytes).next(42);
    expect(a.slice(0, 12)).toBe(b.slice(0, 12));
    expect(a).not.toBe(b);
  });
});
