/**
 * Type test of `@RpcMethod` (src/common/rpc/rpc-method.ts), checked by `npm run typecheck` and
 * never run: a handler's result is held to its method's declared result (`MethodResult`, read off
 * the declaration in `@legwork/protocol`). Each `@ts-expect-error` line below is a handler that must
 * not compile; if one ever compiles (the decorator loosened back to "any object"), tsc fails with
 * "Unused '@ts-expect-error' directive". Each is paired with the same handler written right, which
 * must compile, so a line fails for the reason it names and not for another.
 */
import type { MethodResult } from '@legwork/protocol';
import { JsonText } from '../../src/common/rpc/json-text';
import { RpcMethod } from '../../src/common/rpc/rpc-method';
type Config = MethodResult<'public/get_market_config'>;
declare const config: Config;
declare const view: MethodResult<'rfq.get'>;
declare const someText: string;

export class Handlers {
  /** (a) A misspelt field. */
  @RpcMethod('public/get_time')
  time() {
    return { time_ms: 1 };
  }

  // @ts-expect-error `time_msx` is not the declared `time_ms`
  @RpcMethod('public/get_time')
  timeMisspelt() {
    return { time_msx: 1 };
  }

  /** (b) A field of the wrong type, in a promise. */
  @RpcMethod('rfq.get')
  async get() {
    return Promise.resolve(view);
  }

  // @ts-expect-error `state` must be one of the RFQ states, not any string
  @RpcMethod('rfq.get')
  async getWrongState() {
    return Promise.resolve({ ...view, state: someText });
  }

  /** (c) A missing field. */
  @RpcMethod('rfq.subscribe')
  subscribe() {
    return { channel: 'rfq' as const, subscribed: true as const, account_seq: 1 };
  }

  // @ts-expect-error `account_seq` is missing
  @RpcMethod('rfq.subscribe')
  subscribeMissing() {
    return { channel: 'rfq' as const, subscribed: true as const };
  }

  /** (d) JSON text stands for the value it was made from: only a declared result's text will do. */
  @RpcMethod('public/get_market_config')
  marketConfig() {
    return JsonText.of<Config>(config);
  }

  // @ts-expect-error JSON text of another method's result
  @RpcMethod('public/get_market_config')
  marketConfigOfAnother() {
    return JsonText.of<MethodResult<'public/get_time'>>({ time_ms: 1 });
  }

  // @ts-expect-error JSON text of an unknown value
  @RpcMethod('public/get_market_config')
  marketConfigUntyped() {
    return new JsonText(JSON.stringify(config));
  }
}
