import { WsAdapter } from '@nestjs/platform-ws';

/**
 * The `ws` adapter on the HTTP port, with Nest's own `{ event, data }` message routing turned off:
 * the gateway reads JSON-RPC frames itself.
 */
export class JsonRpcWsAdapter extends WsAdapter {
  override bindMessageHandlers(): void {}
}
