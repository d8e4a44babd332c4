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
}
