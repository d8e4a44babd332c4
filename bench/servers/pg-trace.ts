import pg from 'pg';

/** One statement sent by the server to PostgreSQL, as `pg` saw it. */
export interface TracedStatement {
  /** Which pooled connection sent it (1, 2, ...), to group a transaction's statements. */
  connection: number;
  text: string;
  values: unknown[];
  /** Rows answered (first 50), for following values that flow from one statement to the next. */
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
  /** When it was sent: epoch milliseconds with a fraction (performance.timeOrigin + now), comparable across processes of the machine. */
  at: number;
  ms: number;
  error?: string;
}

/**
 * Wraps `pg.Client.prototype.query` (the one `pg` module TypeORM loads) so that, between start()
 * and stop(), every statement text, its parameters and its rows are recorded. Costs nothing but a
 * flag test when not recording.
 */
export function installPgTrace() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const ids = new WeakMap<object, number>();
  let nextId = 1;
  let recording: TracedStatement[] | null = null;

  proto.query = function patched(this: object, ...args: unknown[]) {
    const log = recording;
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (!log || typeof text !== 'string' || typeof args[args.length - 1] === 'function') return original.apply(this, args);
    let connection = ids.get(this);
    if (connection === undefined) ids.set(this, (connection = nextId++));
    const values = (Array.isArray(args[1]) ? args[1] : ((args[0] as { values?: unknown[] }).values ?? [])) as unknown[];
    const started = performance.now();
    const entry: TracedStatement = {
      connection,
      text,
      values: values.map((v) => plain(v)),
      rows: [],
      rowCount: null,
      at: performance.timeOrigin + started,
      ms: 0,
    };
    log.push(entry);
    const result = original.apply(this, args);
    if (isThenable<{ rows?: Array<Record<string, unknown>>; rowCount?: number | null }>(result)) {
      return result.then(
        (r) => {
          entry.ms = performance.now() - started;
          entry.rows = (r?.rows ?? []).slice(0, 50).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v, true)])));
          entry.rowCount = r?.rowCount ?? null;
          return r;
        },
        (error: Error) => {
          entry.ms = performance.now() - started;
          entry.error = error.message;
          throw error;
        },
      );
    }
    return result;
  };

  return {
    start(): void {
      recording = [];
    },
    stop(): TracedStatement[] {
      const out = recording ?? [];
      recording = null;
      return out;
    },
  };
}

/** JSON-safe; a Date in rows becomes `{ $date }` (revived as a Date when rows are canned), in parameters its ISO text. */
function plain(value: unknown, row = false): unknown {
  if (value instanceof Date) return row ? { $date: value.toISOString() } : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return value;
}

/** pg's query answers a promise unless given a callback (a query object may answer otherwise). */
function isThenable<T>(value: unknown): value is Promise<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
