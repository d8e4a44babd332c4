import { MAX_BATCH, failure, isReply, parseFrame, parseRequest } from './json-rpc';

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
