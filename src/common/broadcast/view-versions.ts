import { logger } from '../logging/logger';
import type { Sql, Tx } from '../database/sql';
import { ViewVersionRepository } from './view-version.repository';

/**
 * How often every instance compares its views' versions with the database (docs/spec/design.md section 11:
 * at least every 5 s; a change whose broadcast was lost must be visible within 6 s, so the check
 * runs well inside that: one indexed read of a few rows per instance every 2 s).
 */
const VIEW_CHECK_INTERVAL_MS = 2000;
/** A view not confirmed current for this long stops rfq.* writes (RFQ_NOT_READY). */
export const VIEW_STALE_AFTER_MS = 30_000;

/**
 * Bumps the version of a view topic and answers the new one. Call it inside the transaction of
 * the change, so the new version commits if and only if the change does; instances that missed
 * the change's broadcast see the new version at their next check and reload. Pass the version to
 * ViewSync.publish: an instance that hears it right after the one it holds stays current
 * without a full reload.
 */
export function bumpViewVersion(tx: Tx, topic: string): Promise<bigint> {
  return new ViewVersionRepository(tx).bump(topic, tx);
}

/** What the checker needs of a view (ViewSync implements it). */
export interface VersionedView {
  readonly topic: string;
  /** The version the view was last fully loaded at (null: not loaded yet). */
  readonly loadedVersion: bigint | null;
  /** Reloads everything; `version` is the one read before the load. */
  reloadAll(version: bigint): Promise<void>;
  /** The database said the view is current (or it was just reloaded). */
  confirm(atMs: number): void;
  readonly confirmedAtMs: number;
}

/**
 * The version check of every view of this instance (docs/spec/design.md section 11): every
 * VIEW_CHECK_INTERVAL_MS, one read of all topics' versions; a view behind the database is reloaded
 * in full. A view that could not be confirmed for VIEW_STALE_AFTER_MS (database unreachable, a
 * reload failing) makes `stale()` name it, and the gateway then refuses rfq.* writes.
 */
export class ViewVersions {
  private readonly views = new Set<VersionedView>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private readonly table: ViewVersionRepository;

  /** `sql`: the pool (the checks run outside any transaction). */
  constructor(
    sql: Sql,
    private readonly intervalMs = VIEW_CHECK_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.table = new ViewVersionRepository(sql);
  }

  register(view: VersionedView): void {
    this.views.add(view);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.intervalMs);
      this.timer.unref();
    }
  }

  unregister(view: VersionedView): void {
    this.views.delete(view);
    if (this.views.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  nowMs(): number {
    return this.now();
  }

  /** The topic's committed version (0 before its first change). */
  async read(topic: string): Promise<bigint> {
    return (await this.table.read([topic])).get(topic) ?? 0n;
  }

  /** Topics of the views not confirmed current for VIEW_STALE_AFTER_MS. */
  stale(): string[] {
    const now = this.now();
    const out: string[] = [];
    for (const view of this.views) if (now - view.confirmedAtMs > VIEW_STALE_AFTER_MS) out.push(view.topic);
    return out;
  }

  /** One check now (or the one running): never throws. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce()
      .catch((error) => logger.event('warn', 'view version check failed', { error: String(error) }, 'ViewSync'))
      .finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const views = [...this.views];
    if (views.length === 0) return;
    const readAt = this.now();
    const versions = await this.table.read([...new Set(views.map((v) => v.topic))]);
    await Promise.all(
      views.map(async (view) => {
        const version = versions.get(view.topic) ?? 0n;
        if (view.loadedVersion !== null && view.loadedVersion >= version) return view.confirm(readAt);
        logger.event(
          'info',
          'view behind the database: reloading',
          { topic: view.topic, loaded: String(view.loadedVersion), version: String(version) },
          'ViewSync',
        );
        await view.reloadAll(version).catch(() => undefined); // logged and retried by the view
      }),
    );
  }
}
