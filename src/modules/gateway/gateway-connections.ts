import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { SUBSCRIBE_METHODS } from '@legwork/protocol';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { NOTIFY_TOPIC, type Notification, type NotifyPayload, notificationsOf } from '../../common/broadcast/notifier';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { MetricsService } from '../health/metrics.service';
import { Presence } from '../../common/presence/presence';
import { AccountAccessService } from '../accounts/account-access.service';
import { type AccountAccessState, checkAccess, currentPrincipal } from '../../common/access/access';
import { AccountConnections } from './account-connections';
import { CHANNELS, ClientConnection } from './client-connection';
import { RpcRegistry } from './rpc-registry';

/** How often signed-in connections are checked for their token's `exp` (docs/spec/design.md 10: lapse at exp). */
const LAPSE_CHECK_MS = 500;

/**
 * The open connections of `/client` and what they live through: the count per client IP, the
 * index by account (and the account's presence), the heartbeat, the lapse of a session at its
 * token's `exp` or on an access change, and the notifications from every instance delivered to
 * this instance's subscribers. ClientGateway handles their frames.
 */
@Injectable()
export class GatewayConnections {
  private readonly connections = new Set<ClientConnection>();
  /** Signed-in connections by account. */
  private readonly byAccount = new AccountConnections();
  /** Open connections per client IP (MAX_CONNECTIONS_PER_IP). */
  private readonly perIp = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | null = null;
  private lapseCheck: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private unwatchAccess: (() => void) | null = null;

  constructor(
    private readonly broadcaster: Broadcaster,
    private readonly metrics: MetricsService,
    private readonly access: AccountAccessService,
    private readonly registry: RpcRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly presence: Presence,
  ) {}

  /** The client IP of an upgrade request (section 10), kept on the request for open. */
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

  /** Starts the heartbeat, the lapse check and the delivery of notifications and access changes. */
  start(): void {
    this.unsubscribe = this.broadcaster.subscribe((message) => {
      if (message.topic === NOTIFY_TOPIC) for (const notification of notificationsOf(message.payload as NotifyPayload)) this.deliver(notification);
    });
    this.heartbeat = setInterval(() => this.beat(), this.config.wsPingIntervalMs);
    this.heartbeat.unref();
    this.lapseCheck = setInterval(() => this.lapseExpired(), LAPSE_CHECK_MS);
    this.lapseCheck.unref();
    this.unwatchAccess = this.access.onChange((accountId, state) => this.accessChanged(accountId, state));
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.lapseCheck) clearInterval(this.lapseCheck);
    this.lapseCheck = null;
    this.unwatchAccess?.();
    this.unwatchAccess = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
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

  /** A new socket's connection, counted under its client IP. */
  open(socket: WebSocket, request: IncomingMessage): ClientConnection {
    const ip = this.ipOf(request);
    const connection = new ClientConnection(socket, ip, this.indexer);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    this.connections.add(connection);
    this.metrics.wsConnected();
    return connection;
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

  /** A socket closed: its connection leaves the counts, its stream and the account index. */
  forget(connection: ClientConnection): void {
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

  get size(): number {
    return this.connections.size;
  }

  /** Every open connection (the shutdown closes them). */
  all(): Iterable<ClientConnection> {
    return this.connections;
  }
}
