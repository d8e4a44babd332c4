import { MAX_BATCH, type RpcRequest, failure, frameText, isReply, parseFrame, parseRequest, success } from './json-rpc';
import { JsonText } from '../../common/rpc/json-text';
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
    [{ jsonrpc: '2.0', id: 4, method: '' }, 4],
    [{ jsonrpc: '2.0', id: 5, method: 'm', params: 1 }, 5],
    [{ jsonrpc: '2.0', id: 6, method: 'm', params: 'x' }, 6],
    [{ jsonrpc: '2.0', id: 7, method: 'm', params: true }, 7],
    [{ jsonrpc: '2.0', id: 8, method: 'm', params: null }, 8],
  ])('refuses %j with -32600, echoing id %j', (value, id) => {
    const result = parseRequest(value);
    expect(isReply(result)).toBe(true);
    expect(result).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600, data: { error: 'INVALID_REQUEST' } } });
  });
});

describe('JSON-RPC 2.0 details', () => {
  it('says an empty method is empty, not "not a string"', () => {
    expect(parseRequest({ jsonrpc: '2.0', id: 1, method: '' })).toMatchObject({ error: { message: 'method must not be empty' } });
    expect(parseRequest({ jsonrpc: '2.0', id: 1, method: 5 })).toMatchObject({ error: { message: 'method must be a string' } });
  });
  it('leaves array params to the method (-32602 there), scalar params are an Invalid Request', () => {
    expect(parseRequest({ jsonrpc: '2.0', id: 1, method: 'm', params: [1] })).toEqual({ id: 1, method: 'm', params: [1] });
    expect(parseRequest({ jsonrpc: '2.0', id: 1, method: 'm', params: 0 })).toMatchObject({
      error: { code: -32600, message: 'params must be an object or an array' },
    });
  });
  it.each(['12345678901234567890', '-9007199254740993', '99999999999999999999999999999999', '1.5e300'])(
    'echoes the integer id %s as sent, in a single request and in a batch',
    (id) => {
      const single = parseFrame(`{"jsonrpc":"2.0","method":"m","id":${id}}`);
      expect(single.kind).toBe('single');
      const request = parseRequest((single as { request: unknown }).request);
      expect(isReply(request)).toBe(false);
      expect(frameText(success(request.id, { ok: true }))).toBe(`{"jsonrpc":"2.0","id":${id},"result":{"ok":true}}`);
      expect(frameText(failure(request.id, 'METHOD_NOT_FOUND', 'no'))).toBe(
        `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(failure(1, 'METHOD_NOT_FOUND', 'no').error)}}`,
      );
      const batch = parseFrame(`[ {"id":"a","jsonrpc":"2.0","method":"m"}, {"params":{"id":1},"id" : ${id},"jsonrpc":"2.0","method":"m"} ]`);
      const replies = (batch as { requests: unknown[] }).requests.map((r) => parseRequest(r) as RpcRequest).map((r) => success(r.id, new JsonText('1')));
      expect(frameText(replies)).toBe(`[{"jsonrpc":"2.0","id":"a","result":1},{"jsonrpc":"2.0","id":${id},"result":1}]`);
    },
  );
  it('still refuses a number id with a fraction, beyond 2^53 or not', () => {
    for (const id of ['12345678901234567890.5', '1.5']) {
      const frame = parseFrame(`{"jsonrpc":"2.0","method":"m","id":${id}}`) as { request: unknown };
      expect(parseRequest(frame.request)).toMatchObject({ id: null, error: { code: -32600 } });
    }
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
