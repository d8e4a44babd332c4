import { logger } from '../logging/logger';
import type { Broadcaster } from './broadcaster';

/**
 * Keeps an in-memory view of database rows in step on every instance (architecture.md: caches of
 * the database). A writer commits, reloads its own view (`refresh`) and announces the change
 * (`publish`); every instance, the writer included, reloads the part it hears about. Reloads run
 * one at a time in the order asked, so an older read never overwrites a newer one; a failed
 * reload is retried as a full reload every second until one succeeds.
 */
export class ViewSync<Part> {
  private reloads: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly broadcaster: Broadcaster,
    private readonly topic: string,
    /** Reads a part (null: everything) from the database into the view. */
    private readonly load: (part: Part | null) => Promise<void>,
    /** The part a broadcast payload names (null: reload everything). */
    private readonly partOf: (payload: unknown) => Part | null,
  ) {}

  /** Listens for changes and loads everything. */
  async start(): Promise<void> {
    this.unsubscribe = this.broadcaster.subscribe((message) => {
      if (message.topic === this.topic) void this.refresh(this.partOf(message.payload)).catch(() => undefined);
    });
    await this.refresh(null);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  refresh(part: Part | null): Promise<void> {
    const run = this.reloads.then(() => this.load(part));
    this.reloads = run.catch((error) => {
      logger.event('error', 'view reload failed', { topic: this.topic, part, error: String(error) }, 'ViewSync');
      this.retryLater();
    });
    return run;
  }

  /** Tells every instance to reload `payload`'s part. */
  publish(payload: unknown): Promise<void> {
    return this.broadcaster.publish(this.topic, payload);
  }

  private retryLater(): void {
    if (this.retryTimer || !this.unsubscribe) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.refresh(null).catch(() => undefined);
    }, 1000);
    this.retryTimer.unref?.();
  }
}
