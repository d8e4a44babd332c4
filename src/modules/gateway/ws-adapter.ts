import { WsAdapter } from '@nestjs/platform-ws';
import { logger } from '../../common/logging/logger';

/**
 * The `ws` adapter on the HTTP port, with Nest's own `{ event, data }` message routing turned off:
 * the gateway reads JSON-RPC frames itself. A client's socket errors (a frame over the limit, a
 * broken connection) are the client's doing: logged at debug, not as server errors.
 */
export class JsonRpcWsAdapter extends WsAdapter {
  override bindMessageHandlers(): void {}

  override bindErrorHandler(server: any): any {
    server.on('connection', (socket: any) => socket.on('error', (error: Error) => logger.event('debug', 'client socket error', { error: error.message }, 'Gateway')));
    server.on('error', (error: Error) => logger.event('error', 'websocket server error', { error: error.message }, 'Gateway'));
    return server;
  }
}
