import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, type BeforeApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { METHODS, SUBSCRIBE_METHODS, isMethodName } from '@legwork/protocol';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { NOTIFY_TOPIC, type Notification, type NotifyPayload, notificationsOf } from '../../common/broadcast/notifier';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { MetricsService } from '../health/metrics.service';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { Presence } from '../../common/presence/presence';
import { ShutdownState } from '../../common/shutdown-state';
import { AccountAccessService } from '../accounts/account-access.service';
import { type AccountAccessState, checkAccess, currentPrincipal } from '../../common/access/access';
import { AccountConnections } from './account-connections';
import { CHANNELS, ClientConnection, MAX_IN_FLIGHT } from './client-connection';
import { type RpcReply, type RpcRequest, failure, isReply, parseFrame, parseRequest } from './json-rpc';
import { RpcDispatcher, rfqFailure, rpcOutcome } from './rpc-dispatcher';
import { RpcRegistry } from './rpc-registry';

export const MAX_FRAME_BYTES = 64 * 1024;
/** SIGTERM: how long the calls in flight get to be answered before the sockets close (docs/spec/design.md section 11). */
const DRAIN_CALLS_MS = 5000;
const SHUTTING_DOWN = 'this instance is shutting down: reconnect (to another instance) and call again';
/** How often signed-in connections are checked for their token's `exp` (docs/spec/design.md 10: lapse at exp). */
const LAPSE_CHECK_MS = 500;
/** The method whose access a channel's subscription needs (a role change drops what it no longer allows). */
const TOO_MANY_IN_FLIGHT = 'too many requests in flight';
/** A place in flight frees as soon as one reply is out: the client may send again shortly. */
const IN_FLIGHT_RETRY_MS = 100;

/**
 * Calls decided in the order they arrived on their connection (docs/spec/design.md section 19:
 * pipelined quotes, whose nonces must rise in that order). A batch runs in order anyway.
 */
const ORDERED_METHODS: ReadonlySet<unknown> = new Set(['rfq.maker.respond']);
const methodOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { method?: unknown }).method : undefined);

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
// clientTracking off: the gateway keeps its own set of connections, and ws's would add a Set entry
// and a `close` closure per socket.
@WebSocketGateway({ path: '/client', maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false })
export class ClientGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown, OnModuleDestroy {
  private server: WebSocketServer | null = null;
  private readonly connections = new Set<ClientConnection>();
  /** Signed-in connections by account. */
  private readonly byAccount = new AccountConnections();
  /** Open connections per client IP (MAX_CONNECTIONS_PER_IP). */
  private readonly perIp = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | null = null;
  private lapseCheck: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private unwatchAccess: (() => void) | null = null;
  /** Set on shutdown: no new connection or call is taken, the ones in flight are answered. */
  private draining = false;
  /** Frames being handled (their replies not sent yet). */
  private inFlight = 0;

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly broadcaster: Broadcaster,
    private readonly metrics: MetricsService,
    private readonly access: AccountAccessService,
    private readonly registry: RpcRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly shutdown: ShutdownState,
    private readonly presence: Presence,
  ) {}

  /** The client IP of an upgrade request (section 10), kept on the request for handleConnection. */
  private ipOf(request: IncomingMessage): string {
    const known = (request as { legworkIp?: string }).legworkIp;
    if (known) return known;
    const ip = clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
    (request as { legworkIp?: string }).legworkIp = ip;
    return ip;
  }

  /** Whether an upgrade may open one more connection for its client IP (else it is answered 429). */
  admits(request: IncomingMessage): boolean {
    return (this.perIp.get(this.ipOf(request)) ?? 0) < this.config.maxConnectionsPerIp;
  }

  afterInit(server: WebSocketServer): void {
    this.server = server;
    this.unsubscribe = this.broadcaster.subscribe((message) => {
      if (message.topic === NOTIFY_TOPIC) for (const notification of notificationsOf(message.payload as NotifyPayload)) this.deliver(notification);
    });
    this.heartbeat = setInterval(() => this.beat(), this.config.wsPingIntervalMs);
    this.heartbeat.unref();
    this.lapseCheck = setInterval(() => this.lapseExpired(), LAPSE_CHECK_MS);
    this.lapseCheck.unref();
    this.unwatchAccess = this.access.onChange((accountId, state) => this.accessChanged(accountId, state));
  }

  /**
   * Sessions whose token's `exp` has passed end (the dispatcher refuses them already in between).
   * All connections are looked at, not a set of the signed-in ones: such a set costs memory per
   * idle connection, a pass over a few thousand connections twice a second next to nothing.
   */
  private lapseExpired(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      const expiresAt = connection.principal?.expiresAt;
      if (expiresAt !== undefined && expiresAt * 1000 <= now) connection.lapse('expired');
    }
  }

  /**
   * An account's roles or revocation changed (on any instance): its live sessions here end on a
   * revoke, else act with the new roles, and lose the subscriptions those no longer allow.
   */
  private accessChanged(accountId: number, state: AccountAccessState): void {
    for (const connection of this.byAccount.of(accountId)) {
      const token = connection.principal;
      if (!token) continue;
      const current = currentPrincipal(token, state, Date.now());
      if (typeof current === 'string') {
        connection.lapse(current);
        continue;
      }
      for (const channel of CHANNELS) {
        const method = this.registry.get(SUBSCRIBE_METHODS[channel]);
        if (connection.subscribed(channel) && method && checkAccess(method.access, current)) connection.unsubscribe(channel);
      }
    }
  }

  private readonly indexer = (connection: ClientConnection) => this.index(connection);
  private readonly onMessage = ((gateway: ClientGateway) =>
    function (this: WebSocket, data: RawData, isBinary: boolean) {
      void gateway.onFrame((this as SocketWithConnection)[CONNECTION], data, isBinary);
    })(this);
  private readonly onClose = ((gateway: ClientGateway) =>
    function (this: WebSocket) {
      gateway.forget((this as SocketWithConnection)[CONNECTION]);
    })(this);

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    if (this.draining) {
      socket.close(1001, 'server shutting down');
      return;
    }
    const ip = this.ipOf(request);
    const connection = new ClientConnection(socket, ip, this.indexer);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    (socket as SocketWithConnection)[CONNECTION] = connection;
    this.connections.add(connection);
    this.metrics.wsConnected();
    // Shared listeners (not closures per socket): an idle connection should cost little memory.
    socket.on('pong', onPong);
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
  }

  private async onFrame(connection: ClientConnection, data: RawData, isBinary: boolean): Promise<void> {
    if (this.draining) return this.refuseWhileDraining(connection, data, isBinary);
    this.inFlight += 1;
    try {
      await this.answerFrame(connection, data, isBinary);
    } finally {
      this.inFlight -= 1;
    }
  }

  /**
   * A call that arrives during the drain is answered, not run: rfq.* with RFQ_NOT_READY
   * (retryable), any other with INTERNAL_ERROR, both saying to reconnect. The client knows it
   * was not done and may repeat it on another instance.
   */
  private refuseWhileDraining(connection: ClientConnection, data: RawData, isBinary: boolean): void {
    const frame = isBinary ? null : parseFrame(data.toString());
    const requests = frame?.kind === 'single' ? [frame.request] : frame?.kind === 'batch' ? frame.requests : [];
    const replies = requests.map((value) => {
      const request = parseRequest(value);
      if (isReply(request)) return request;
      return refusal(request);
    });
    if (replies.length > 0) connection.send(frame?.kind === 'batch' ? replies : replies[0]);
  }

  private async answerFrame(connection: ClientConnection, data: RawData, isBinary: boolean): Promise<void> {
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
      if (connection.inFlight >= MAX_IN_FLIGHT) {
        connection.send(this.overloaded(frame.request));
        return;
      }
      connection.inFlight += 1;
      try {
        const request = frame.request;
        const reply = ORDERED_METHODS.has(methodOf(request)) ? connection.inOrder(() => this.handle(connection, request)) : this.handle(connection, request);
        connection.send(await reply);
      } finally {
        connection.inFlight -= 1;
      }
      return;
    }
    // A batch runs in order and is answered in one array; each of its requests takes a place in
    // flight from its arrival (the ones over the limit are answered 1005 in the array).
    const admitted = Math.max(0, Math.min(frame.requests.length, MAX_IN_FLIGHT - connection.inFlight));
    connection.inFlight += admitted;
    const replies: RpcReply[] = [];
    let released = 0;
    try {
      for (let i = 0; i < frame.requests.length; i++) {
        if (i >= admitted) {
          replies.push(this.overloaded(frame.requests[i]));
          continue;
        }
        replies.push(await this.handle(connection, frame.requests[i]));
        connection.inFlight -= 1;
        released += 1;
      }
    } finally {
      connection.inFlight -= admitted - released;
    }
    connection.send(replies);
  }

  private async handle(connection: ClientConnection, value: unknown): Promise<RpcReply> {
    const request = parseRequest(value);
    if (isReply(request)) return this.refused(request);
    return this.dispatcher.dispatch(request, connection);
  }

  /** 1005 at once for a request over MAX_IN_FLIGHT (its id echoed when readable). */
  private overloaded(value: unknown): RpcReply {
    const request = parseRequest(value);
    return this.refused(isReply(request) ? request : failure(request.id, 'RATE_LIMITED', TOO_MANY_IN_FLIGHT, IN_FLIGHT_RETRY_MS));
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
    this.byAccount.add(accountId, connection);
    this.presence.opened(accountId);
  }

  private unindex(connection: ClientConnection): void {
    const accountId = connection.indexedAccount;
    connection.indexedAccount = null;
    if (accountId === null) return;
    this.byAccount.delete(accountId, connection);
    this.presence.closed(accountId);
  }

  private forget(connection: ClientConnection): void {
    if (this.connections.delete(connection)) {
      this.metrics.wsDisconnected();
      const left = (this.perIp.get(connection.clientIp) ?? 1) - 1;
      if (left > 0) this.perIp.set(connection.clientIp, left);
      else this.perIp.delete(connection.clientIp);
    }
    connection.closeStream();
    this.unindex(connection);
  }

  private deliver(notification: Notification): void {
    const accountSeq = notification.data.account_seq;
    if (notification.accountId !== undefined && typeof accountSeq === 'number') {
      // An account event: each connection's stream sends it in account_seq order, once.
      const event = { accountSeq, channel: notification.channel, data: notification.data };
      for (const connection of this.byAccount.of(notification.accountId)) connection.liveEvent(event);
      return;
    }
    const targets = notification.accountId !== undefined ? this.byAccount.of(notification.accountId) : this.connections;
    for (const connection of targets) {
      if (!connection.subscribed(notification.channel)) continue;
      if (notification.exceptAccountId !== undefined && connection.accountId === notification.exceptAccountId) continue;
      connection.notify(notification.channel, notification.data, true);
    }
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Graceful shutdown (docs/spec/design.md section 11): take no new connection or call, answer the calls in
   * flight (at most DRAIN_CALLS_MS), then close every socket with 1001 (going away).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    this.shutdown.begin();
    this.stop();
    const started = Date.now();
    const callsDeadline = started + DRAIN_CALLS_MS;
    while (this.inFlight > 0 && Date.now() < callsDeadline) await new Promise((r) => setTimeout(r, 10));
    logger.event(
      this.inFlight > 0 ? 'warn' : 'info',
      'drain: calls in flight answered',
      { ms: Date.now() - started, unanswered: this.inFlight, connections: this.connections.size },
      'Gateway',
    );
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
    if (this.lapseCheck) clearInterval(this.lapseCheck);
    this.lapseCheck = null;
    this.unwatchAccess?.();
    this.unwatchAccess = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

function refusal(request: RpcRequest): RpcReply {
  if (isMethodName(request.method) && METHODS[request.method].dialect === 'rfq')
    return rfqFailure(request.id, new RfqError('RFQ_NOT_READY', SHUTTING_DOWN, { reason: 'shutting_down' }), randomUUID());
  return failure(request.id, 'INTERNAL_ERROR', SHUTTING_DOWN);
}
