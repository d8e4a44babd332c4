import { Injectable } from '@nestjs/common';
import { Broadcaster } from './broadcaster';

/** Subscription channels of the trading WebSocket. */
export type Channel = 'rfq' | 'rfq_maker';

/** Who receives a notification: one account's subscribers, or every subscriber of the channel. */
export interface Notification {
  channel: Channel;
  /** Deliver only to this account's connections (else to every subscriber of the channel). */
  accountId?: number;
  /** Never to this account (the taker of a new RFQ, the maker holding the quote). */
  exceptAccountId?: number;
  /** The body of `params.data`, without `seq` (each connection numbers its own). */
  data: Record<string, unknown>;
}

export const NOTIFY_TOPIC = 'notify';

/** The payload of a NOTIFY_TOPIC broadcast: one notification, or several in order (one message). */
export type NotifyPayload = Notification | Notification[];

/** The notifications of a NOTIFY_TOPIC payload, in order. */
export function notificationsOf(payload: NotifyPayload): Notification[] {
  return Array.isArray(payload) ? payload : [payload];
}

/**
 * Services announce subscription events here; the gateway of every instance hears them through
 * the broadcaster and delivers them to its own subscribed connections.
 */
@Injectable()
export class Notifier {
  constructor(private readonly broadcaster: Broadcaster) {}

  async notify(notification: Notification): Promise<void> {
    await this.broadcaster.publish(NOTIFY_TOPIC, notification);
  }

  /**
   * Several notifications in one broadcast (one Redis PUBLISH): the events of one state move, or
   * of a batch of moves. Every instance delivers them in this order.
   */
  async notifyAll(notifications: readonly Notification[]): Promise<void> {
    if (notifications.length === 0) return;
    await this.broadcaster.publish(NOTIFY_TOPIC, notifications.length === 1 ? notifications[0] : notifications);
  }
}
