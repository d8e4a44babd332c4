import { logger } from '../logging/logger';
import type { Broadcaster } from './broadcaster';
import type { VersionedView, ViewVersions } from './view-versions';

/**
 * Keeps an in-memory view of database rows in step on every instance (architecture.md: caches of
 * the database). A writer commits, reloads its own view (`refresh`) and announces the change
 * (`publish`); every instance, the writer included, reloads the part it hears about. Reloads run
 * one at a time in the order asked, so an older read never overwrites a newer one; a failed
 * reload is retried as a full reload every second until one succeeds.
 *
 * Broadcasts can be lost (docs/spec/design.md section 11: Redis drops the subscriptions). With `versions`,
 * the view also reloads in full whenever the subscription is made again, and the version check
 * reloads it when the database's version of its topic (bumped by every writer in the change's
 * transaction: bumpViewVersion) is ahead of the one it was loaded at; a view not confirmed for
 * 30 s stops rfq.* writes. A cache opts in by passing `versions`, bumping its topic's version in
 * every change's transaction and passing that version to `publish`.
 */
export class ViewSync<Part> implements VersionedView {
  private reloads: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private stopResubscribe: (() => void) | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  loadedVersion: bigint | null = null;
  confirmedAtMs: number;

  constructor(
    private readonly broadcaster: Broadcaster,
    readonly topic: string,
    /** Reads a part (null: everything) from the database into the view. */
    private readonly load: (part: Part | null) => Promise<void>,
    /** The part a broadcast payload names (null: reload everything). */
    private readonly partOf: (payload: unknown) => Part | null,
    private readonly versions: ViewVersions | null = null,
  ) {
    this.confirmedAtMs = versions?.nowMs() ?? 0;
  }

  /** Listens for changes and loads everything. */
  async start(): Promise<void> {
    this.unsubscribe = this.broadcaster.subscribe((message) => {
      if (message.topic !== this.topic) return;
      const { payload, version } = unwrap(message.payload);
      void this.refreshHeard(this.partOf(payload), version).catch(() => undefined);
    });
    if (this.versions) {
      // Whatever was published while the subscription was down is unheard: read it all again.
      this.stopResubscribe = this.broadcaster.onResubscribe(() => {
        logger.event('info', 'subscription restored: reloading view', { topic: this.topic }, 'ViewSync');
        void this.refresh(null).catch(() => undefined);
      });
      this.versions.register(this);
    }
    await this.refresh(null);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopResubscribe?.();
    this.stopResubscribe = null;
    this.versions?.unregister(this);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Reloads a part (null: everything, at the version read just before). */
  refresh(part: Part | null): Promise<void> {
    return this.enqueue(async () => {
      if (part !== null || !this.versions) return this.load(part);
      await this.loadAll(await this.versions.read(this.topic));
    });
  }

  /** The version check found the database ahead of `version`'s load: reload everything. */
  reloadAll(version: bigint): Promise<void> {
    return this.enqueue(() => this.loadAll(version));
  }

  confirm(atMs: number): void {
    this.confirmedAtMs = Math.max(this.confirmedAtMs, atMs);
  }

  /** Tells every instance to reload `payload`'s part; `version`: what bumpViewVersion answered for the change. */
  publish(payload: unknown, version: bigint | null = null): Promise<void> {
    return this.broadcaster.publish(this.topic, version === null ? payload : { [VERSIONED]: version.toString(), part: payload });
  }

  /**
   * A broadcast heard: reload its part. When it names the version right after the one the view
   * holds, every change up to it is now loaded (the earlier ones already were; this one just
   * was, read after its commit), so the view holds that version; any other order leaves the
   * version alone and the check reloads in full.
   */
  private refreshHeard(part: Part | null, version: bigint | null): Promise<void> {
    if (part === null) return this.refresh(null);
    return this.enqueue(async () => {
      await this.load(part);
      if (version !== null && this.loadedVersion !== null && version === this.loadedVersion + 1n) this.loadedVersion = version;
    });
  }

  /** `version` was read before the load began, so the view holds at least that version's rows. */
  private async loadAll(version: bigint): Promise<void> {
    const startedAt = this.versions?.nowMs() ?? 0;
    await this.load(null);
    if (this.loadedVersion === null || version > this.loadedVersion) this.loadedVersion = version;
    this.confirm(startedAt);
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.reloads.then(task);
    this.reloads = run.catch((error) => {
      logger.event('error', 'view reload failed', { topic: this.topic, error: String(error) }, 'ViewSync');
      this.retryLater();
    });
    return run;
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

/** The key of a versioned broadcast payload: `{ [VERSIONED]: "<version>", part: <payload> }`. */
const VERSIONED = 'view_version';

function unwrap(payload: unknown): { payload: unknown; version: bigint | null } {
  if (typeof payload === 'object' && payload !== null && typeof (payload as Record<string, unknown>)[VERSIONED] === 'string') {
    const p = payload as { [VERSIONED]: string; part: unknown };
    return { payload: p.part, version: BigInt(p[VERSIONED]) };
  }
  return { payload, version: null };
}
