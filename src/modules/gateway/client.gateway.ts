import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BeforeApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { METHODS, isMethodName } from '@legwork/protocol';
import { MetricsService } from '../health/metrics.service';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { ShutdownState } from '../../common/shutdown-state';
import { type ClientConnection, MAX_IN_FLIGHT } from './client-connection';
import { GatewayConnections } from './gateway-connections';
import { type RpcReply, type RpcRequest, failure, isReply, parseFrame, parseRequest } from './json-rpc';
import { RpcDispatcher, rfqFailure, rpcOutcome } from './rpc-dispatcher';

export const MAX_FRAME_BYTES = 64 * 1024;
/** SIGTERM: how long the calls in flight get to be answered before the sockets close (docs/spec/design.md section 11). */
const DRAIN_CALLS_MS = 5000;
const SHUTTING_DOWN = 'this instance is shutting down: reconnect (to another instance) and call again';
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
 * `/client`: the JSON-RPC 2.0 trading WebSocket on the HTTP port: its frames (parse, batch, calls
 * in flight, the order of pipelined quotes) and the drain on shutdown. Frames over 64 KiB close
 * the socket with 1009 (ws's maxPayload). GatewayConnections keeps the connections (heartbeat,
 * presence, lapse, notifications).
 */
// clientTracking off: GatewayConnections keeps its own set of connections, and ws's would add a Set entry
// and a `close` closure per socket.
@WebSocketGateway({ path: '/client', maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false })
export class ClientGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown, OnModuleDestroy {
  private server: WebSocketServer | null = null;
  /** Set on shutdown: no new connection or call is taken, the ones in flight are answered. */
  private draining = false;
  /** Frames being handled (their replies not sent yet). */
  private inFlight = 0;

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly metrics: MetricsService,
    private readonly shutdown: ShutdownState,
    private readonly connections: GatewayConnections,
  ) {}

  /** Whether an upgrade may open one more connection for its client IP (else it is answered 429). */
  admits(request: IncomingMessage): boolean {
    return this.connections.admits(request);
  }

  afterInit(server: WebSocketServer): void {
    this.server = server;
    this.connections.start();
  }

  private readonly onMessage = ((gateway: ClientGateway) =>
    function (this: WebSocket, data: RawData, isBinary: boolean) {
      void gateway.onFrame((this as SocketWithConnection)[CONNECTION], data, isBinary);
    })(this);
  private readonly onClose = ((gateway: ClientGateway) =>
    function (this: WebSocket) {
      gateway.connections.forget((this as SocketWithConnection)[CONNECTION]);
    })(this);

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    if (this.draining) {
      socket.close(1001, 'server shutting down');
      return;
    }
    (socket as SocketWithConnection)[CONNECTION] = this.connections.open(socket, request);
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
    for (const connection of this.connections.all()) connection.socket.close(1001, 'server shutting down');
    const deadline = Date.now() + 2000;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const connection of this.connections.all()) connection.socket.terminate();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  private stop(): void {
    this.connections.stop();
  }
}

function refusal(request: RpcRequest): RpcReply {
  if (isMethodName(request.method) && METHODS[request.method].dialect === 'rfq')
    return rfqFailure(request.id, new RfqError('RFQ_NOT_READY', SHUTTING_DOWN, { reason: 'shutting_down' }), randomUUID());
  return failure(request.id, 'INTERNAL_ERROR', SHUTTING_DOWN);
}
