import type { IncomingMessage } from 'node:http';
import { Inject, type BeforeApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { NOTIFY_TOPIC, type Notification, type NotifyPayload, notificationsOf } from '../../common/broadcast/notifier';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { MetricsService } from '../health/metrics.service';
import { ClientConnection } from './client-connection';
import { type RpcReply, failure, isReply, parseFrame, parseRequest } from './json-rpc';
import { RpcDispatcher, rpcOutcome } from './rpc-dispatcher';

export const MAX_FRAME_BYTES = 64 * 1024;

const CONNECTION = Symbol('legwork.connection');
type SocketWithConnection = WebSocket & { [CONNECTION]: ClientConnection };

function onPong(this: WebSocket): void {
  (this as SocketWithConnection)[CONNECTION].missedPongs = 0;
}

/**
 * `/client`: the JSON-RPC 2.0 trading WebSocket on the HTTP port. Frames over 64 KiB close the
 * socket with 1009 (ws's maxPayload); the server pings every WS_PING_INTERVAL_MS and cuts a client
 * that missed two pongs; notifications from every instance reach this instance's subscribers.
 */
@WebSocketGateway({ path: '/client', maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false })
export class ClientGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown, OnModuleDestroy {
  private server: WebSocketServer | null = null;
  private readonly connections = new Set<ClientConnection>();
  /** Signed-in connections by account (an array: most accounts hold one connection). */
  private readonly byAccount = new Map<number, ClientConnection[]>();
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly broadcaster: Broadcaster,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    this.server = server;
    this.unsubscribe = this.broadcaster.subscribe((message) => {
      if (message.topic === NOTIFY_TOPIC) for (const notification of notificationsOf(message.payload as NotifyPayload)) this.deliver(notification);
    });
    this.heartbeat = setInterval(() => this.beat(), this.config.wsPingIntervalMs);
    this.heartbeat.unref();
  }

  private readonly indexer = (connection: ClientConnection) => this.index(connection);
  private readonly onMessage = (() => {
    const gateway = this;
    return function (this: WebSocket, data: RawData, isBinary: boolean) {
      void gateway.onFrame((this as SocketWithConnection)[CONNECTION], data, isBinary);
    };
  })();
  private readonly onClose = (() => {
    const gateway = this;
    return function (this: WebSocket) {
      gateway.forget((this as SocketWithConnection)[CONNECTION]);
    };
  })();

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    const connection = new ClientConnection(
      socket,
      clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress, this.config.trustProxy),
      this.indexer,
    );
    (socket as SocketWithConnection)[CONNECTION] = connection;
    this.connections.add(connection);
    this.metrics.wsConnected();
    // Shared listeners (not closures per socket): an idle connection should cost little memory.
    socket.on('pong', onPong);
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
  }

  private async onFrame(connection: ClientConnection, data: RawData, isBinary: boolean): Promise<void> {
    if (isBinary) {
      connection.send(this.refused(failure(null, 'PARSE_ERROR', 'frames must be text')));
      return;
    }
    const frame = parseFrame(data.toString());
    if (frame.kind === 'reply') {
      connection.send(this.refused(frame.reply));
      return;
    }
    if (frame.kind === 'single') {
      connection.send(await this.handle(connection, frame.request));
      return;
    }
    // A batch runs in order and is answered in one array.
    const replies: RpcReply[] = [];
    for (const request of frame.requests) replies.push(await this.handle(connection, request));
    connection.send(replies);
  }

  private async handle(connection: ClientConnection, value: unknown): Promise<RpcReply> {
    const request = parseRequest(value);
    if (isReply(request)) return this.refused(request);
    return this.dispatcher.dispatch(request, connection);
  }

  /** A frame or request refused before any method ran (-32700, -32600): counted under method `invalid`. */
  private refused(reply: RpcReply): RpcReply {
    this.metrics.rpcCall('invalid', rpcOutcome(reply));
    return reply;
  }

  private beat(): void {
    for (const connection of this.connections) {
      if (connection.missedPongs >= 2) {
        connection.socket.terminate();
        continue;
      }
      connection.missedPongs += 1;
      connection.socket.ping();
    }
  }

  /** Called on every sign-in or subscription: files the connection under its account. */
  private index(connection: ClientConnection): void {
    if (connection.indexedAccount === connection.accountId) return;
    this.unindex(connection);
    const accountId = connection.accountId;
    connection.indexedAccount = accountId;
    if (accountId === null) return;
    const list = this.byAccount.get(accountId);
    if (list) list.push(connection);
    else this.byAccount.set(accountId, [connection]);
  }

  private unindex(connection: ClientConnection): void {
    const accountId = connection.indexedAccount;
    connection.indexedAccount = null;
    if (accountId === null) return;
    const list = this.byAccount.get(accountId);
    if (!list) return;
    const at = list.indexOf(connection);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.byAccount.delete(accountId);
  }

  private forget(connection: ClientConnection): void {
    if (this.connections.delete(connection)) this.metrics.wsDisconnected();
    connection.closeStream();
    this.unindex(connection);
  }

  private deliver(notification: Notification): void {
    const accountSeq = notification.data.account_seq;
    if (notification.accountId !== undefined && typeof accountSeq === 'number') {
      // An account event: each connection's stream sends it in account_seq order, once.
      const event = { accountSeq, channel: notification.channel, data: notification.data };
      for (const connection of this.byAccount.get(notification.accountId) ?? []) connection.liveEvent(event);
      return;
    }
    const targets = notification.accountId !== undefined ? (this.byAccount.get(notification.accountId) ?? []) : this.connections;
    for (const connection of targets) {
      if (!connection.subscribed(notification.channel)) continue;
      if (notification.exceptAccountId !== undefined && connection.accountId === notification.exceptAccountId) continue;
      connection.notify(notification.channel, notification.data);
    }
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Graceful shutdown: stop taking connections, close every socket with 1001 (going away). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop();
    for (const connection of this.connections) connection.socket.close(1001, 'server shutting down');
    const deadline = Date.now() + 2000;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const connection of this.connections) connection.socket.terminate();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  private stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
