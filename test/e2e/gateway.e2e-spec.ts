import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import WebSocket from 'ws';
import { ACCESS } from '../../src/common/access/access';
import { METHOD_NAMES as RPC_METHODS } from '@legwork/protocol';
import { RpcRegistry } from '../../src/modules/gateway/rpc-registry';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { signInWs, createAccount } from './factories';
import { Environment, type TestApp } from './harness';

describe('JSON-RPC gateway at /client', () => {
  let env: Environment;
  let app: TestApp;
  let client: RpcClient;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start({ WS_PING_INTERVAL_MS: '200' });
    client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    await env.destroy();
  });

  const code = (reply: any) => ({ code: reply.error?.code, error: reply.error?.data?.error, id: reply.id });

  it('answers a frame that is not JSON with -32700 and id null', async () => {
    expect(code(await client.sendRaw('{"jsonrpc":"2.0",'))).toEqual({ code: -32700, error: 'PARSE_ERROR', id: null });
    expect(code(await client.sendRaw(Buffer.from([1, 2, 3])))).toEqual({ code: -32700, error: 'PARSE_ERROR', id: null });
  });

  it('answers what is not a request with -32600, echoing a readable id', async () => {
    expect(code(await client.sendRaw('42'))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: null });
    expect(code(await client.send({ jsonrpc: '1.0', id: 'a', method: 'public/get_market_config' }, 'a'))).toEqual({
      code: -32600,
      error: 'INVALID_REQUEST',
      id: 'a',
    });
    expect(code(await client.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'public/get_market_config' })))).toEqual({
      code: -32600,
      error: 'INVALID_REQUEST',
      id: null,
    });
    expect(code(await client.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'x' })))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: null });
    expect(code(await client.send({ jsonrpc: '2.0', id: 9, method: 7 }, 9))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: 9 });
  });

  it('follows JSON-RPC 2.0 on params, method and id: scalar params -32600, empty method named, ids beyond 2^53 echoed as sent', async () => {
    for (const params of [1, 'x', true, null]) {
      expect(code(await client.call('public/get_market_config', params, 'p'))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: 'p' });
    }
    const empty = await client.call('', {}, 'e');
    expect(empty).toMatchObject({ id: 'e', error: { code: -32600, message: 'method must not be empty' } });
    for (const id of ['12345678901234567890', '-9007199254740993']) {
      const reply = await client.sendRaw(`{"jsonrpc":"2.0","method":"public/get_market_config","id":${id}}`);
      expect(reply.result).toBeDefined();
      expect(client.texts.at(-1)).toContain(`"id":${id},`);
      // The client reads the reply with JSON.parse too: its batch key is the id as a double reads it.
      await client.send(`[{"jsonrpc":"2.0","method":"nope","id":${id}}]`, `batch:${Number(id)}`);
      expect(client.texts.at(-1)).toMatch(new RegExp(`^\\[\\{"jsonrpc":"2.0","id":${id},"error":\\{"code":-32601`));
    }
  });

  it('answers public/session_resume without a string session_token with -32602, a bad token with 1004', async () => {
    const resumer = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect(code(await resumer.call('public/session_resume', {}, 1))).toEqual({ code: -32602, error: 'INVALID_PARAMS', id: 1 });
    expect(code(await resumer.call('public/session_resume', { session_token: 5 }, 2))).toEqual({ code: -32602, error: 'INVALID_PARAMS', id: 2 });
    expect(code(await resumer.call('public/session_resume', { session_token: 'x.y.z' }, 3))).toEqual({ code: 1004, error: 'SESSION_INVALID', id: 3 });
    await resumer.close();
  });

  it('answers an unknown method with -32601', async () => {
    expect(code(await client.call('private/get_positions', {}, 'm1'))).toEqual({ code: -32601, error: 'METHOD_NOT_FOUND', id: 'm1' });
  });

  it('answers bad params of a public method with -32602', async () => {
    expect(code(await client.call('public/get_nonce', { wallet: 5 }, 7))).toEqual({ code: -32602, error: 'INVALID_PARAMS', id: 7 });
    expect(code(await client.call('public/get_nonce', [new TestWallet().address], 8))).toEqual({ code: -32602, error: 'INVALID_PARAMS', id: 8 });
    expect(code(await client.call('public/auth', { wallet: new TestWallet().address, extra: 1 }, 9))).toEqual({ code: -32602, error: 'INVALID_PARAMS', id: 9 });
  });

  it('accepts string, integer and null ids and echoes them', async () => {
    for (const id of ['abc', 0, 123456789, null]) {
      const reply = await client.send({ jsonrpc: '2.0', id, method: 'public/get_market_config' }, id);
      expect(reply).toMatchObject({ jsonrpc: '2.0', id, result: expect.any(Object) });
    }
  });

  it('answers a batch in order with one array, and refuses an empty or oversized batch', async () => {
    const wallet = new TestWallet().address;
    const replies = await client.batch([
      { jsonrpc: '2.0', id: 'b1', method: 'public/get_market_config' },
      { jsonrpc: '2.0', id: 'b2', method: 'nope' },
      { jsonrpc: '2.0', id: 'b3', method: 'public/get_nonce', params: { wallet } },
    ]);
    expect(replies.map((r) => r.id)).toEqual(['b1', 'b2', 'b3']);
    expect(replies[0].result).toBeDefined();
    expect(replies[1].error.code).toBe(-32601);
    expect(replies[2].result.wallet).toBe(wallet);
    expect(code(await client.sendRaw('[]'))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: null });
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'public/get_market_config' }));
    expect(code(await client.sendRaw(JSON.stringify(tooMany)))).toEqual({ code: -32600, error: 'INVALID_REQUEST', id: null });
  });

  it('closes a socket that sends a frame over 64 KiB with 1009 and keeps serving the others', async () => {
    const victim = await RpcClient.connect(app.wsUrl);
    victim.socket.send('x'.repeat(2 * 1024 * 1024));
    expect(await victim.closed).toBe(1009);
    const justUnder = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'public/get_market_config', params: { pad: 'x'.repeat(60 * 1024) } });
    expect(Buffer.byteLength(justUnder)).toBeLessThan(64 * 1024);
    const ok = await RpcClient.connect(app.wsUrl);
    expect((await ok.send(justUnder, 'big')).id).toBe('big');
    await ok.close();
    expect((await client.call('public/get_market_config')).result).toBeDefined();
    expect((await new Http(app.url).get('/health')).status).toBe(200);
  });

  it('pings and cuts a client that stops answering pongs', async () => {
    const quiet = new WebSocket(app.wsUrl, { autoPong: false });
    let pings = 0;
    quiet.on('ping', () => pings++);
    const code = await new Promise<number>((resolve) => quiet.on('close', resolve));
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(code).toBe(1006); // terminated
    // A client that answers pongs stays.
    const lively = await RpcClient.connect(app.wsUrl);
    await new Promise((r) => setTimeout(r, 1000));
    expect(lively.socket.readyState).toBe(WebSocket.OPEN);
    await lively.close();
  });

  it('cuts a slow consumer whose unsent data passes 1 MiB', async () => {
    const slow = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    slow.socket.pause(); // stop reading: the server's buffer fills
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/get_instruments', params: {} });
    const big = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'public/get_market_config', params: {} })));
    for (let i = 0; i < 4000 && slow.socket.readyState === WebSocket.OPEN; i++) {
      slow.socket.send(i % 2 ? request : big);
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    slow.socket.resume();
    const closed = await Promise.race([slow.closed, new Promise((r) => setTimeout(() => r('open'), 10000))]);
    expect(closed).not.toBe('open');
    expect((await client.call('public/get_market_config')).result).toBeDefined();
  });

  it('requires sign-in state per connection: a session belongs to the socket that signed in', async () => {
    const { wallet } = await createAccount(app, ['quoter']);
    const { client: signed } = await signInWs(app, wallet);
    const other = await RpcClient.connect(app.wsUrl);
    const reply = await other.call('rfq.maker.subscribe', {});
    if (reply.error?.code !== -32601) {
      expect(reply.error).toMatchObject({ code: 1200, data: { error: 'RFQ_WRONG_ROLE', retryable: false, operation_id: expect.any(String) } });
      expect((await signed.call('rfq.maker.subscribe', {})).result).toEqual({ channel: 'rfq_maker', subscribed: true, account_seq: 0 });
    }
    await signed.close();
    await other.close();
  });

  it('declares access on every JSON-RPC method and every HTTP route', () => {
    const registry = app.app.get(RpcRegistry);
    for (const method of registry.all()) expect(method.access).toBeDefined();
    const registered = registry.all().map((m) => m.name);
    for (const name of ['public/get_nonce', 'public/auth', 'public/session_resume', 'public/get_market_config', 'public/get_instruments']) {
      expect(registered).toContain(name);
    }
    for (const name of registered) expect(RPC_METHODS).toContain(name);

    const discovery = app.app.get(DiscoveryService);
    const scanner = app.app.get(MetadataScanner);
    const reflector = app.app.get(Reflector);
    const undeclared: string[] = [];
    let routes = 0;
    for (const wrapper of discovery.getControllers()) {
      const prototype = Object.getPrototypeOf(wrapper.instance);
      for (const key of scanner.getAllMethodNames(prototype)) {
        if (Reflect.getMetadata('method', prototype[key]) === undefined) continue; // not a route
        routes++;
        if (!reflector.getAllAndOverride(ACCESS, [prototype[key], wrapper.metatype])) undeclared.push(`${wrapper.name}.${key}`);
      }
    }
    expect(routes).toBeGreaterThan(5);
    expect(undeclared).toEqual([]);
  });
});
