import type { IncomingMessage } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { logger } from '../../common/logging/logger';
import { ClientGateway } from './client.gateway';

/**
 * The `ws` adapter on the HTTP port, with Nest's own `{ event, data }` message routing turned off:
 * the gateway reads JSON-RPC frames itself. A client's socket errors (a frame over the limit, a
 * broken connection) are the client's doing: logged at debug, not as server errors.
 */
export class JsonRpcWsAdapter extends WsAdapter {
  private gateway: ClientGateway | null = null;

  constructor(private readonly app: INestApplicationContext) {
    super(app);
  }

  override bindMessageHandlers(): void {}

  /**
   * Nest would add a `once('close')` wrapper per socket to feed handleDisconnect, which the gateway
   * does not have: it listens for `close` itself. Not adding it saves about 250 bytes per idle
   * connection (the wrapper, its closure and state, and the listener array it turns `close` into).
   */
  override bindClientDisconnect(): void {}

  /**
   * Every upgrade passes the gateway's per-IP connection limit first: over MAX_CONNECTIONS_PER_IP
   * it is answered 429 and no socket is opened (docs/spec/design.md section 0).
   */
  override create(port: number, options?: Record<string, unknown>): unknown {
    return super.create(port, {
      ...options,
      verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void) => {
        if (!this.gateway) this.gateway = this.app.get(ClientGateway, { strict: false });
        const gateway = this.gateway!;
        if (gateway.admits(info.req)) done(true);
        // A place frees when one of the address's connections closes: no later time is known, so the least (section 16).
        else done(false, 429, 'Too Many Requests', UPGRADE_REFUSED_HEADERS);
      },
    });
  }

  override bindErrorHandler(server: WebSocketServer): WebSocketServer {
    server.on('connection', (socket: WebSocket) => socket.on('error', onClientSocketError));
    server.on('error', (error: Error) => logger.event('error', 'websocket server error', { error: error.message }, 'Gateway'));
    return server;
  }
}

const UPGRADE_REFUSED_HEADERS = { 'Retry-After': '1' };

/** One listener shared by every socket (a closure each would cost memory per idle connection). */
function onClientSocketError(error: Error): void {
  logger.event('debug', 'client socket error', { error: error.message }, 'Gateway');
}
