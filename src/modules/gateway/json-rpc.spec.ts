import { JsonText, MAX_BATCH, failure, frameText, isReply, parseFrame, parseRequest, success } from './json-rpc';

describe('parseFrame', () => {
  it('refuses text that is not JSON with -32700 and id null', () => {
    expect(parseFrame('{"jsonrpc":')).toEqual({ kind: 'reply', reply: failure(null, 'PARSE_ERROR', 'the frame is not valid JSON') });
  });
  it('refuses an empty batch and one over 20', () => {
    expect(parseFrame('[]')).toMatchObject({ kind: 'reply', reply: { id: null, error: { code: -32600 } } });
    expect(parseFrame(JSON.stringify(Array(MAX_BATCH + 1).fill({})))).toMatchObject({ kind: 'reply', reply: { error: { code: -32600 } } });
    expect(parseFrame(JSON.stringify(Array(MAX_BATCH).fill({})))).toMatchObject({ kind: 'batch' });
  });
});

describe('parseRequest', () => {
  it('reads a request, params default {}', () => {
    expect(parseRequest({ jsonrpc: '2.0', id: 7, method: 'm' })).toEqual({ id: 7, method: 'm', params: {} });
    expect(parseRequest({ jsonrpc: '2.0', id: null, method: 'm', params: { a: 1 } })).toEqual({ id: null, method: 'm', params: { a: 1 } });
  });
  it.each([
    [5, null],
    ['x', null],
    [[], null],
    [{ id: 1, method: 'm' }, 1],
    [{ jsonrpc: '1.0', id: 'a', method: 'm' }, 'a'],
    [{ jsonrpc: '2.0', method: 'm' }, null],
    [{ jsonrpc: '2.0', id: 1.5, method: 'm' }, null],
    [{ jsonrpc: '2.0', id: {}, method: 'm' }, null],
    [{ jsonrpc: '2.0', id: 3, method: 4 }, 3],
  ])('refuses %j with -32600, echoing id %j', (value, id) => {
    const result = parseRequest(value);
    expect(isReply(result)).toBe(true);
    expect(result).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600, data: { error: 'INVALID_REQUEST' } } });
  });
});

describe('frameText', () => {
  it('is JSON.stringify for every frame, with a JsonText result put in as its text', () => {
    const config = { service_name: 'Legwork', assets: [{ asset: 'SOL', index_price: '150' }], rfq: { enabled: true } };
    const text = new JsonText(JSON.stringify(config));
    for (const id of [1, 'a"b', null]) {
      const frame = frameText(success(id, text));
      expect(frame).toBe(JSON.stringify(success(id, config)));
      expect(JSON.parse(frame)).toEqual({ jsonrpc: '2.0', id, result: config });
    }
    const batch = [success(1, text), failure(2, 'METHOD_NOT_FOUND', 'no'), success(3, { x: 1n.toString() })];
    expect(frameText(batch)).toBe(JSON.stringify(batch));
    const notification = { jsonrpc: '2.0', method: 'subscription', params: { channel: 'rfq', data: { seq: 1 } } };
    expect(frameText(notification)).toBe(JSON.stringify(notification));
  });
});
