import type { Channel } from '../../common/broadcast/notifier';
import { EventStream, SinceOutOfRange } from './event-stream';
import type { EventSource, StreamEvent } from '../../common/rpc/event-source';
/** An account's stored events, with reads that can be held to let live events race them. */
class Store implements EventSource {
  readonly events: StreamEvent[] = [];
  oldest = 1;
  gate: Promise<void> | null = null;
  reads = 0;
  /** The (after, upTo] of every read, in the order they were asked. */
  readonly asked: Array<[number, number]> = [];
  /** Numbers a read leaves out (deleted under it), and reads that fail (by their order, from 1). */
  readonly missing = new Set<number>();
  readonly failing = new Set<number>();
  admit?: EventSource['admit'];

  add(channel: Channel = 'rfq'): StreamEvent {
    const event = { accountSeq: this.events.length + 1, channel, data: { account_seq: this.events.length + 1 } };
    this.events.push(event);
    return event;
  }
  async bounds() {
    return { latest: this.events.length, oldest: this.events.length ? this.oldest : null };
  }
  async range(after: number, upTo: number, limit: number) {
    const read = ++this.reads;
    this.asked.push([after, upTo]);
    if (this.gate) await this.gate;
    if (this.failing.has(read)) throw new Error(`read ${read} failed`);
    return this.events
      .filter((e) => e.accountSeq > after && e.accountSeq <= upTo && e.accountSeq >= this.oldest && !this.missing.has(e.accountSeq))
      .slice(0, limit);
  }
}

function streamOf(store: Store, gapWaitMs = 20) {
  const sent: Array<[Channel, number]> = [];
  const stream = new EventStream(store, (channel, data) => sent.push([channel, (data as Record<string, unknown>).account_seq as number]), gapWaitMs);
  return { stream, sent, seqs: () => sent.map(([, s]) => s) };
}
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('EventStream', () => {
  it('replays after since, then live; a live event committed during the replay is sent once, in order', async () => {
    const store = new Store();
    for (let i = 0; i < 5; i++) store.add();
    const { stream, seqs } = streamOf(store);
    let open!: () => void;
    store.gate = new Promise((r) => (open = r));
    const opening = stream.open('rfq', 2);
    await flush();
    // 5 (already stored: a duplicate of the replay) and 6, 7 arrive live while the replay is held.
    stream.live(store.events[4]);
    stream.live(store.add());
    stream.live(store.add());
    open();
    expect(await opening).toBe(5);
    expect(seqs()).toEqual([3, 4, 5, 6, 7]);
  });

  it('holds a live event that arrives ahead of a missing number, then reads the gap', async () => {
    const store = new Store();
    const { stream, seqs } = streamOf(store);
    await stream.open('rfq', null);
    store.add();
    const second = store.add();
    stream.live(second); // 1's broadcast was lost on the way
    expect(seqs()).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seqs()).toEqual([1, 2]);
    stream.live(store.events[0]); // late: dropped
    expect(seqs()).toEqual([1, 2]);
    stream.close();
  });

  it('counts the other channel without sending it; a channel joining later replays its own events', async () => {
    const store = new Store();
    store.add('rfq');
    store.add('rfq_maker');
    store.add('rfq');
    const { stream, sent } = streamOf(store);
    await stream.open('rfq', 0);
    expect(sent).toEqual([
      ['rfq', 1],
      ['rfq', 3],
    ]);
    await stream.open('rfq_maker', 0);
    stream.live(store.add('rfq_maker'));
    expect(sent).toEqual([
      ['rfq', 1],
      ['rfq', 3],
      ['rfq_maker', 2],
      ['rfq_maker', 4],
    ]);
  });

  it('refuses since after the latest or before what is stored, and stays closed', async () => {
    const store = new Store();
    for (let i = 0; i < 4; i++) store.add();
    store.oldest = 3;
    const { stream, seqs } = streamOf(store);
    await expect(stream.open('rfq', 5)).rejects.toThrow(SinceOutOfRange);
    await expect(stream.open('rfq', 1)).rejects.toThrow(/kept 7 days/);
    stream.live(store.add());
    expect(seqs()).toEqual([]);
    expect(await stream.open('rfq', 2)).toBe(5);
    expect(seqs()).toEqual([3, 4, 5]);
  });

  it('pages a long replay in order', async () => {
    const store = new Store();
    for (let i = 0; i < 2500; i++) store.add();
    const { stream, seqs } = streamOf(store);
    await stream.open('rfq', 0);
    expect(seqs()).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    // A short first page, then growing pages of at most 1,000 numbers.
    expect(store.asked).toEqual([
      [0, 100],
      [100, 500],
      [500, 1500],
      [1500, 2500],
    ]);
  });

  it('reads the next pages while one is sent, and sends them in order whichever read answers first', async () => {
    const store = new Store();
    for (let i = 0; i < 2500; i++) store.add();
    const { stream, seqs } = streamOf(store);
    let open!: () => void;
    store.gate = new Promise((r) => (open = r));
    const opening = stream.open('rfq', 0);
    await flush();
    expect(store.reads).toBe(2); // the first page and the one after it, before either answered
    expect(seqs()).toEqual([]);
    open();
    await opening;
    expect(seqs()).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
  });

  it('stops a replay at a hole (events deleted under it): nothing after the hole is sent out of order', async () => {
    const store = new Store();
    for (let i = 0; i < 1200; i++) store.add();
    for (let seq = 300; seq <= 320; seq++) store.missing.add(seq);
    const { stream, seqs } = streamOf(store);
    expect(await stream.open('rfq', 0)).toBe(1200);
    expect(seqs()).toEqual(Array.from({ length: 299 }, (_, i) => i + 1));
    stream.close();
  });

  it('fails the subscribe when a page cannot be read, with the reads ahead of it left handled', async () => {
    const store = new Store();
    for (let i = 0; i < 2500; i++) store.add();
    store.failing.add(2);
    store.failing.add(3);
    const { stream, seqs } = streamOf(store);
    await expect(stream.open('rfq', 0)).rejects.toThrow('read 2 failed');
    expect(seqs()).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await flush(); // read 3's failure is not an unhandled rejection
    expect(seqs()).toHaveLength(100);
  });

  it('one replay per channel at a time: a subscribe with since while one runs is RFQ_STATE_CONFLICT; the other channel and a plain subscribe are not', async () => {
    const store = new Store();
    for (let i = 0; i < 50; i++) store.add(i % 2 ? 'rfq' : 'rfq_maker');
    const { stream } = streamOf(store);
    let open!: () => void;
    store.gate = new Promise((r) => (open = r));
    const first = stream.open('rfq', 0);
    await flush();
    await expect(stream.open('rfq', 0)).rejects.toMatchObject({ code: 'RFQ_STATE_CONFLICT' });
    const maker = stream.open('rfq_maker', 10);
    open();
    expect(await first).toBe(50);
    expect(await maker).toBe(50);
    // Once the replay has answered, another may run.
    expect(await stream.open('rfq', 40)).toBe(50);
  });

  it('a replay stops when its connection closes: no page is asked for after the close', async () => {
    const store = new Store();
    for (let i = 0; i < 20_000; i++) store.add();
    const { stream, seqs } = streamOf(store);
    let open!: () => void;
    store.gate = new Promise((r) => (open = r));
    const replay = stream.open('rfq', 0);
    await flush();
    expect(store.reads).toBe(2); // two pages read ahead, no more
    stream.close();
    open();
    await replay;
    await flush();
    expect(store.reads).toBe(2);
    expect(seqs()).toEqual([]);
  });

  it('pages hold at most 1,000 events, with at most two read ahead of the one being sent', async () => {
    const store = new Store();
    for (let i = 0; i < 10_000; i++) store.add();
    let inFlight = 0;
    let most = 0;
    const range = store.range.bind(store);
    store.range = async (after, upTo, limit) => {
      most = Math.max(most, ++inFlight);
      try {
        expect(limit).toBeLessThanOrEqual(1000);
        expect(upTo - after).toBeLessThanOrEqual(1000);
        return await range(after, upTo, limit);
      } finally {
        inFlight -= 1;
      }
    };
    const { stream, seqs } = streamOf(store);
    await stream.open('rfq', 0);
    expect(seqs()).toHaveLength(10_000);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('a governed replay (design.md section 20): admitted once, never more sent than granted, 32 a turn, in order, the slot released after', async () => {
    const store = new Store();
    for (let i = 0; i < 1050; i++) store.add();
    const grants: number[] = [];
    let granted = 0;
    let released = 0;
    store.admit = async () => ({
      grant: async (want: number) => {
        grants.push(want);
        const taken = Math.min(want, 300); // a budget that pays out less than asked: the replay pauses, never skips
        granted += taken;
        return taken;
      },
      release: () => (released += 1),
    });
    const sent: number[] = [];
    let inTurn = 0;
    let mostInTurn = 0;
    const stream = new EventStream(store, (_channel, data) => {
      expect(sent.length).toBeLessThan(granted);
      sent.push((data as Record<string, unknown>).account_seq as number);
      // Counted until the event loop turns: a chunk is what goes out before the replay yields.
      if (inTurn++ === 0) setImmediate(() => (inTurn = 0));
      mostInTurn = Math.max(mostInTurn, inTurn);
    });
    expect(await stream.open('rfq', 0)).toBe(1050);
    expect(sent).toEqual(Array.from({ length: 1050 }, (_, i) => i + 1));
    expect(mostInTurn).toBe(32);
    // Asked by the page (100, 400, 550), each while the page before it goes out; a partial grant is
    // followed by the lease on its way, then by one for what is still missing (50).
    expect(grants).toEqual([100, 400, 550, 550, 50]);
    expect(granted).toBe(1050);
    expect(released).toBe(1);
    // Nothing to replay: no slot taken.
    const other = streamOf(store);
    expect(await other.stream.open('rfq', 1050)).toBe(1050);
    expect(released).toBe(1);
  });

  it('a governed replay that stops (the connection closed) sends nothing past the close, and leases nothing past the next page', async () => {
    const store = new Store();
    for (let i = 0; i < 1050; i++) store.add();
    let grants = 0;
    store.admit = async () => ({ grant: async (want: number) => (grants++, want), release: () => undefined });
    const sent: number[] = [];
    const stream = new EventStream(store, (_channel, data) => {
      sent.push((data as Record<string, unknown>).account_seq as number);
      if (sent.length === 64) stream.close();
    });
    await stream.open('rfq', 0);
    expect(sent).toHaveLength(64);
    // The first page's lease, and the second's asked while the first went out.
    expect(grants).toBe(2);
  });

  it('a refused admission leaves the subscribe refused and nothing sent', async () => {
    const store = new Store();
    for (let i = 0; i < 5; i++) store.add();
    store.admit = () => Promise.reject(new Error('two replays run'));
    const { stream, sent } = streamOf(store);
    await expect(stream.open('rfq', 0)).rejects.toThrow('two replays run');
    expect(sent).toEqual([]);
  });
});
