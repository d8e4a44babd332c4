import type { SqlParams } from '../database/sql';
import { InProcessBroadcaster } from './broadcaster';
import { ViewSync } from './view-sync';
import { VIEW_STALE_AFTER_MS, ViewVersions } from './view-versions';

/** A view_versions table in memory behind a `Sql`; `down` makes every read fail (database unreachable). */
function fakeTable() {
  const versions = new Map<string, bigint>();
  const select = async <T extends object>(_text: string, params?: SqlParams): Promise<T[]> => {
    if (table.down) throw new Error('connection refused');
    const topics = params![0] as string[];
    return topics.filter((t) => versions.has(t)).map((t) => ({ topic: t, version: versions.get(t)!.toString() })) as unknown as T[];
  };
  const table = {
    versions,
    down: false,
    rows: select,
    one: async <T extends object>(text: string, params?: SqlParams) => (await select<T>(text, params))[0] ?? null,
    exec: async () => 0,
    get manager(): never {
      throw new Error('not used');
    },
    afterCommit: (fn: () => void) => fn(),
  };
  return table;
}

describe('ViewVersions', () => {
  let now = 0;
  const clock = () => now;

  it('reloads a view in full when the database is ahead (a change whose broadcast was lost)', async () => {
    const table = fakeTable();
    const versions = new ViewVersions(table, 60_000, clock);
    const loads: Array<string | null> = [];
    const view = new ViewSync<string>(
      new InProcessBroadcaster(),
      't',
      async (part) => void loads.push(part),
      () => null,
      versions,
    );
    await view.start();
    expect(loads).toEqual([null]);
    expect(view.loadedVersion).toBe(0n);

    await versions.check();
    expect(loads).toEqual([null]); // current: nothing read again

    table.versions.set('t', 3n); // three changes committed, none heard
    await versions.check();
    expect(loads).toEqual([null, null]);
    expect(view.loadedVersion).toBe(3n);
    view.stop();
  });

  it('names a view it could not confirm for 30 s, and stops naming it once confirmed', async () => {
    const table = fakeTable();
    const versions = new ViewVersions(table, 60_000, clock);
    const view = new ViewSync<string>(
      new InProcessBroadcaster(),
      't',
      async () => undefined,
      () => null,
      versions,
    );
    await view.start();
    table.down = true;
    now += VIEW_STALE_AFTER_MS - 1;
    await versions.check();
    expect(versions.stale()).toEqual([]);
    now += 2;
    await versions.check();
    expect(versions.stale()).toEqual(['t']);
    table.down = false;
    await versions.check();
    expect(versions.stale()).toEqual([]);
    view.stop();
  });

  it('a view whose reload keeps failing is not confirmed by the version check', async () => {
    const table = fakeTable();
    const versions = new ViewVersions(table, 60_000, clock);
    let failing = false;
    const view = new ViewSync<string>(
      new InProcessBroadcaster(),
      't',
      async () => {
        if (failing) throw new Error('read failed');
      },
      () => null,
      versions,
    );
    await view.start();
    failing = true;
    table.versions.set('t', 1n);
    now += VIEW_STALE_AFTER_MS + 1;
    await versions.check();
    expect(view.loadedVersion).toBe(0n);
    expect(versions.stale()).toEqual(['t']);
    view.stop();
  });
});

describe('ViewSync with versioned broadcasts', () => {
  const now = 0;
  const clock = () => now;

  it('a broadcast of the next version keeps the view current without a full reload; a gap leaves it to the check', async () => {
    const table = fakeTable();
    const versions = new ViewVersions(table, 60_000, clock);
    const broadcaster = new InProcessBroadcaster();
    const loads: Array<string | null> = [];
    const view = new ViewSync<string>(
      broadcaster,
      't',
      async (part) => void loads.push(part),
      (p) => (p as { part: string }).part,
      versions,
    );
    await view.start();
    const heard = () => new Promise((r) => setImmediate(() => setImmediate(r)));

    table.versions.set('t', 1n);
    await view.publish({ part: 'A' }, 1n);
    await heard();
    expect(loads).toEqual([null, 'A']);
    expect(view.loadedVersion).toBe(1n);
    await versions.check();
    expect(loads).toEqual([null, 'A']); // current: no full reload

    table.versions.set('t', 3n); // change 2 was never heard
    await view.publish({ part: 'B' }, 3n);
    await heard();
    expect(view.loadedVersion).toBe(1n);
    await versions.check();
    expect(loads).toEqual([null, 'A', 'B', null]);
    expect(view.loadedVersion).toBe(3n);
    view.stop();
  });
});
