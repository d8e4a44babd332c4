import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { logger } from '../logging/logger';
import { quitRedis } from '../redis/close';

/** A message to every instance: a topic (what changed, for whom) and a JSON payload. */
interface Broadcast {
  topic: string;
  payload: unknown;
}

export type BroadcastListener = (message: Broadcast) => void;

/**
 * The broadcaster port: Redis pub/sub across instances in production, an in-process emitter in
 * the embedded default. Every instance, the publisher included, hears every message once.
 */
export abstract class Broadcaster {
  abstract publish(topic: string, payload: unknown): Promise<void>;
  abstract subscribe(listener: BroadcastListener): () => void;
  /**
   * Called each time the subscription is made again after it was lost (messages published in
   * between were not heard: listeners reload from the database). Never called in-process.
   */
  abstract onResubscribe(listener: () => void): () => void;
  abstract close(): Promise<void>;
}

export class InProcessBroadcaster extends Broadcaster {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(topic: string, payload: unknown): Promise<void> {
    // Delivered on a later tick, as over Redis: a publisher's own transaction has finished first.
    const message: Broadcast = { topic, payload: JSON.parse(JSON.stringify(payload)) };
    setImmediate(() => this.emitter.emit('message', message));
  }

  subscribe(listener: BroadcastListener): () => void {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }

  onResubscribe(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class RedisBroadcaster extends Broadcaster {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly channel: string;
  private started = false;

  /** `publisher` is shared; `subscriber` is a dedicated connection (it enters subscriber mode). */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix: string,
  ) {
    super();
    this.channel = `${prefix}:events`;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      try {
        this.emitter.emit('message', JSON.parse(text) as Broadcast);
      } catch (error) {
        logger.event('error', 'unreadable broadcast', { error: String(error) }, 'Broadcaster');
      }
    });
    // ioredis resubscribes on every reconnection (a Redis restart, `CLIENT KILL TYPE pubsub`),
    // sending SUBSCRIBE right after 'ready': listeners reload once that has gone out.
    subscriber.on('ready', () => {
      if (!this.started) return;
      logger.event('warn', 'broadcast subscription restored', {}, 'Broadcaster');
      setImmediate(() => this.emitter.emit('resubscribed'));
    });
  }

  async start(): Promise<void> {
    await this.subscriber.subscribe(this.channel);
    this.started = true;
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    await this.publisher.publish(this.channel, JSON.stringify({ topic, payload }));
  }

  subscribe(listener: BroadcastListener): () => void {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }

  onResubscribe(listener: () => void): () => void {
    this.emitter.on('resubscribed', listener);
    return () => this.emitter.off('resubscribed', listener);
  }

  async close(): Promise<void> {
    this.started = false;
    this.emitter.removeAllListeners();
    await quitRedis(this.subscriber);
  }
}
