import type { WebSocket } from 'ws';
import { ClientConnection } from './client-connection';

/** A socket that keeps the frames sent to it. */
function fakeSocket() {
  const frames: string[] = [];
  const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: (text: string) => frames.push(text), close: () => undefined, terminate: () => undefined };
  return { socket: socket as unknown as WebSocket, frames };
}

describe('ClientConnection.notify', () => {
  const old = (channel: string, seq: number, data: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data: { seq, ...data } } });

  it('writes the same text as serializing the whole frame, each connection with its own seq', () => {
    const a = fakeSocket();
    const b = fakeSocket();
    const ca = new ClientConnection(a.socket, '127.0.0.1', () => undefined);
    const cb = new ClientConnection(b.socket, '127.0.0.1', () => undefined);
    const data = {
      event: 'created',
      account_seq: undefined,
      rfq: { rfq_id: 'ab'.repeat(16), legs: [{ instrument: 'X', quantity: '1' }], note: 'quote "q" \u2028' },
    };
    ca.notify('rfq_maker', { event: 'other' }, true);
    ca.notify('rfq_maker', data, true);
    cb.notify('rfq_maker', data, true);
    ca.notify('session', {}, true);
    expect(a.frames).toEqual([old('rfq_maker', 1, { event: 'other' }), old('rfq_maker', 2, data), old('session', 3, {})]);
    expect(b.frames).toEqual([old('rfq_maker', 1, data)]);
    expect(JSON.parse(a.frames[1]).params.data.seq).toBe(2);
  });

  it('writes the same text for an account event, serialized directly (not shared)', () => {
    const a = fakeSocket();
    const c = new ClientConnection(a.socket, '127.0.0.1', () => undefined);
    const data = { event: 'filled', account_seq: 7, rfq: { rfq_id: 'cd'.repeat(16), note: '\u2028' } };
    c.notify('rfq', data);
    c.notify('rfq', data, true);
    c.notify('session', {});
    c.notify('rfq', { event: 'x', account_seq: undefined, rfq: { fill: null, legs: [] } });
    expect(a.frames).toEqual([
      old('rfq', 1, data),
      old('rfq', 2, data),
      old('session', 3, {}),
      old('rfq', 4, { event: 'x', account_seq: undefined, rfq: { fill: null, legs: [] } }),
    ]);
  });

  it('lets a data member named seq win, as the spread did', () => {
    const a = fakeSocket();
    const c = new ClientConnection(a.socket, '127.0.0.1', () => undefined);
    c.notify('rfq', { seq: 99, event: 'x' }, true);
    c.notify('rfq', { seq: 98, event: 'y' });
    expect(a.frames).toEqual([old('rfq', 1, { seq: 99, event: 'x' }), old('rfq', 2, { seq: 98, event: 'y' })]);
  });
});
