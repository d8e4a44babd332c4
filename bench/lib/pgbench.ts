import { writeFileSync } from 'node:fs';
import type { TracedStatement } from '../servers/pg-trace';
import { run } from './proc';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

/** Values of the traced lifecycle that differ per lifecycle or per client, and their pgbench variable. */
export interface Dynamics {
  rfqId: string;
  quoteId: string;
  clientRef: string;
  quoteNonce: string;
  takerId: number;
  makerId: number;
}

export interface Script {
  text: string;
  /** -D name=value definitions (the constant parameters, passed as text like the `pg` driver does). */
  defines: Record<string, string>;
  statements: number;
  /** COMMITs and statements outside a transaction: the commits one run of the script makes (besides the id SELECT). */
  commits: number;
  transactions: number;
  autocommit: number;
  /**
   * Which commands of the script (0-based, in the order pgbench -r lists them: the two \set lines and
   * the id SELECT first) are the fill job's statements: the accepted → submitting move and the fill
   * transaction (F7's baseline sums their latencies).
   */
  fillCommands: number[];
}

const TX_BEGIN = /^\s*(START TRANSACTION|BEGIN)\b/i;
/** The fill's receipt write (JournalService.append): its chain values differ on every run. */
const RECEIPT_WRITE = /INSERT INTO receipts\b/;

/**
 * The receipt write of a traced fill, for pgbench: the server computes journal_seq, hash and
 * prev_hash in Node from the head it locked, so the traced values would repeat (a primary-key
 * conflict on the second run). Here the statement takes them from the head in SQL (hash =
 * SHA-256 of the payload and the number, as unique as the server's), and keeps the traced kind,
 * payload, key, signature and time; the fill id is the run's own. Same rows, same locks.
 */
function receiptWrite(names: Array<string | null>): string {
  const [, kind, fill, payload, , , key, signature, at] = names.map((n) => (n === null ? 'NULL' : `:${n}`));
  return `WITH h AS (SELECT journal_seq + 1 AS seq, hash AS prev FROM journal_head WHERE id = 1), receipt AS (INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at) SELECT h.seq, ${kind}, ${fill}, ${payload}, encode(sha256(${payload}::bytea || convert_to(h.seq::text, 'UTF8')), 'hex'), h.prev, ${key}, ${signature}, ${at} FROM h RETURNING journal_seq, hash) UPDATE journal_head SET journal_seq = r.journal_seq, hash = r.hash FROM receipt r WHERE id = 1`;
}
/** The journal appender's batch write (JournalRepository.appendBatch): receipts chained after the fill's COMMIT. */
const BATCH_WRITE = /DELETE FROM journal_pending WHERE id = ANY/;
/** The batch's read of the head and the staged rows (JournalRepository.headAndPending / pending): replayed as traced. */
const BATCH_READ = /FROM journal_pending p JOIN fills f ON f\.id = p\.fill_id/;

/**
 * The appender's batch write, for pgbench: the server links and signs the staged receipts in Node
 * from the head it locked, so the traced arrays would repeat. Here one statement chains, in SQL,
 * what is staged (up to 200, in staging order) from the head (hash = SHA-256 of the payload and
 * the number, as in `receiptWrite`), keeps the traced key, deletes the staged rows and moves the
 * head. The head is locked first (the DELETE waits for `h`), so concurrent clients number from the
 * head as the one before them left it. Same rows, same locks, one batch per script run.
 */
function batchWrite(names: Array<string | null>): string {
  const key = names[8] === null ? 'NULL' : `:${names[8]}`;
  return `WITH h AS (SELECT journal_seq, hash FROM journal_head WHERE id = 1 FOR UPDATE), p AS (DELETE FROM journal_pending WHERE id IN (SELECT id FROM journal_pending ORDER BY id LIMIT 200) AND EXISTS (SELECT 1 FROM h) RETURNING id, kind, fill_id, body, at), n AS (SELECT p.*, h.journal_seq + row_number() OVER (ORDER BY p.id) AS seq, h.hash AS prev FROM p, h), r AS (INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at) SELECT n.seq, n.kind, n.fill_id, n.body, encode(sha256(n.body || convert_to(n.seq::text, 'UTF8')), 'hex'), n.prev, ${key}, 'pgbench', n.at FROM n RETURNING journal_seq, hash) UPDATE journal_head SET journal_seq = m.journal_seq, hash = m.hash FROM (SELECT journal_seq, hash FROM r ORDER BY journal_seq DESC LIMIT 1) m WHERE id = 1`;
}
const TX_END = /^\s*(COMMIT|ROLLBACK)\b/i;
/** The fill transaction (its first statement locks the RFQ row) and the move accepted → submitting before it. */
const FILL_LOCK = /FOR UPDATE OF r\b/;
const SUBMITTING_MOVE = /^\s*WITH moved AS \(UPDATE rfqs SET state/;

/** Traced times within this window of the trace are rewritten relative to the run's clock. */
const TIME_WINDOW_S = 3 * 3600;

/**
 * A pgbench expression for a traced time (unix ms or unix seconds near the trace), as the run's
 * clock plus the same offset; null for any other value.
 */
function nowRelative(text: string, tracedAtMs: number): string | null {
  if (!/^[1-9][0-9]{8,12}$/.test(text)) return null;
  const v = Number(text);
  const offset = (base: string, delta: number): string => (delta >= 0 ? `:${base} + ${delta}` : `:${base} - ${-delta}`);
  if (Math.abs(v - tracedAtMs) <= TIME_WINDOW_S * 1000) return offset('now_ms', v - tracedAtMs);
  const tracedAtS = Math.floor(tracedAtMs / 1000);
  if (Math.abs(v - tracedAtS) <= TIME_WINDOW_S) return offset('now_s', v - tracedAtS);
  return null;
}

/** A transaction block of one connection, or one autocommit statement; `related` when it touches the lifecycle. */
interface Unit {
  statements: TracedStatement[];
  related: boolean;
}

/** Groups the trace's statements (failed ones left out) into units, in the order they began. */
function groupUnits(trace: TracedStatement[], related: (s: TracedStatement) => boolean): Unit[] {
  const units: Unit[] = [];
  const open = new Map<number, Unit>();
  for (const s of trace) {
    if (s.error) continue;
    let unit = open.get(s.connection);
    if (!unit && TX_BEGIN.test(s.text)) {
      unit = { statements: [], related: false };
      open.set(s.connection, unit);
      units.push(unit);
    }
    if (unit) {
      unit.statements.push(s);
      unit.related ||= related(s);
      if (TX_END.test(s.text)) open.delete(s.connection);
    } else units.push({ statements: [s], related: related(s) });
  }
  return units;
}

/** The fill transaction, the accepted → submitting move before it, or the appender's batch after it (the `filled` event waits for it). */
function isFillUnit(unit: Unit): boolean {
  return (
    unit.statements.some((s) => FILL_LOCK.test(s.text) || BATCH_WRITE.test(s.text) || BATCH_READ.test(s.text)) ||
    (unit.statements.length === 1 &&
      SUBMITTING_MOVE.test(unit.statements[0].text) &&
      unit.statements[0].values.includes('submitting') &&
      unit.statements[0].values.includes('accepted'))
  );
}

/** The script's first lines: the client's accounts, the run's clock, the run's fresh ids. */
function scriptHeader(sequence: string): string[] {
  return [
    '-- generated by bench/lib/pgbench.ts from a traced Legwork lifecycle; run with -M extended',
    `\\set taker :tbase + :client_id`,
    `\\set maker :mbase + :client_id`,
    // The run's clock, so that times are current: a traced time would make every run's RFQ look
    // old to the Legwork server's sweeps on the same database (a stuck fill filled by the sweep
    // while pgbench fills it too: a duplicate fill; an expiry moving it under the script).
    `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms, extract(epoch FROM clock_timestamp())::bigint AS now_s \\gset`,
    `SELECT lpad(to_hex(n), 32, '0') AS rid, lpad(to_hex(n), 64, '0') AS qid, '00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0') AS cref, (n + 1000000000000)::text AS nonce FROM (SELECT nextval('${sequence}') AS n) s \\gset`,
  ];
}

/** The script being written: its lines, the -D constants, and the variables known so far. */
interface ScriptState {
  lines: string[];
  defines: Record<string, string>;
  /** The lifecycle's own values (see `Dynamics`), by text. */
  known: Map<string, string>;
  /** Values an earlier statement returned (one row), by text, for id-like columns. */
  returned: Map<string, string>;
  constant: number;
  tracedAtMs: number;
}

/** The pgbench variable of each parameter of `s` (null for SQL NULL); a time gets a \set line, a constant a -D. */
function bindParameters(s: TracedStatement, st: ScriptState): Array<string | null> {
  return s.values.map((v) => {
    if (v === null || v === undefined) return null;
    const text = String(prepareValue(v));
    const fixed = st.known.get(text) ?? st.returned.get(text);
    if (fixed) return fixed;
    const shifted = nowRelative(text, st.tracedAtMs);
    if (shifted) {
      const name = `t${st.constant++}`;
      st.lines.push(`\\set ${name} ${shifted}`);
      return name;
    }
    const name = `c${st.constant++}`;
    st.defines[name] = text;
    return name;
  });
}

/** The statement's line: its text with the variables, and a \gset of the id-like columns it returned (prefixed `prefix`). */
function statementLine(s: TracedStatement, names: Array<string | null>, prefix: string, st: ScriptState): string {
  let sql =
    RECEIPT_WRITE.test(s.text) && !BATCH_WRITE.test(s.text)
      ? receiptWrite(names)
      : BATCH_WRITE.test(s.text)
        ? batchWrite(names)
        : s.text.replace(/\$(\d+)/g, (_m, n: string) => {
            const name = names[Number(n) - 1];
            return name === null ? 'NULL' : `:${name}`;
          });
  sql = sql.replace(/\s+$/, '');
  if (!sql.endsWith(';')) sql += ';';
  if (s.rows.length === 1 && /\bRETURNING\b/i.test(s.text)) {
    let used = false;
    for (const [col, value] of Object.entries(s.rows[0])) {
      if (!/(^id$|_id$)/.test(col) || !isScalar(value)) continue;
      const text = String(value);
      if (st.known.has(text) || st.returned.has(text)) continue;
      st.returned.set(text, `${prefix}${col}`);
      used = true;
    }
    if (used) sql = `${sql.slice(0, -1)} \\gset ${prefix}`;
  }
  return sql;
}

/**
 * A pgbench custom script of the statements one RFQ lifecycle sent to PostgreSQL (pg-trace), in
 * the same transactions and order, every parameter bound as a parameter (pgbench -M extended
 * turns each :variable into $n, as the `pg` driver sends them). Per lifecycle values get fresh
 * values (a sequence, in one SELECT ... \gset at the start), the taker and maker are the client's
 * own accounts (`tbase + client_id`, `mbase + client_id`), ids returned by an INSERT ... RETURNING
 * flow into the later statements through \gset; every other parameter keeps its traced value.
 */
export function buildScript(trace: TracedStatement[], d: Dynamics, sequence: string, tracedAtMs = Math.floor(trace[0]?.at ?? Date.now())): Script {
  const known = new Map<string, string>([
    [d.rfqId, 'rid'],
    [d.quoteId, 'qid'],
    [d.clientRef, 'cref'],
    [d.quoteNonce, 'nonce'],
    [String(d.takerId), 'taker'],
    [String(d.makerId), 'maker'],
  ]);
  // The appender's batch that chained the lifecycle's receipt carries no lifecycle value (arrays of the batch's rows): kept by its text.
  const related = (s: TracedStatement) =>
    BATCH_WRITE.test(s.text) ||
    BATCH_READ.test(s.text) ||
    s.values.some((v) => known.has(String(v)) || (typeof v === 'string' && [...known.keys()].some((k) => k.length >= 32 && v.includes(k))));
  const kept = groupUnits(trace, related).filter((u) => u.related);

  const st: ScriptState = { lines: scriptHeader(sequence), defines: {}, known, returned: new Map(), constant: 0, tracedAtMs };
  let statements = 0;
  let transactions = 0;
  let autocommit = 0;
  const fillCommands: number[] = [];
  kept.forEach((unit, u) => {
    const fillUnit = isFillUnit(unit);
    if (unit.statements.length > 1 || TX_BEGIN.test(unit.statements[0].text)) transactions++;
    else autocommit++;
    unit.statements.forEach((s, k) => {
      const names = bindParameters(s, st);
      const sql = statementLine(s, names, `g${u}_${k}_`, st);
      // lines[0] is a comment, not a command: the command index of this statement is lines.length - 1.
      if (fillUnit) fillCommands.push(st.lines.length - 1);
      st.lines.push(sql);
      statements++;
    });
  });
  const text = st.lines.join('\n') + '\n';
  return { text, defines: st.defines, statements, commits: transactions + autocommit, transactions, autocommit, fillCommands };
}

export interface PgbenchResult {
  tps: number;
  transactions: number;
  failed: number;
  seconds: number;
  /** With `latencies`: each command's mean latency, ms (pgbench -r), in script order. */
  commandMs: number[];
  pid: number;
  stdout: string;
  stderr: string;
}

/** Runs pgbench with a custom script file (-n, -M extended). */
export async function pgbench(
  databaseUrl: string,
  file: string,
  script: Script,
  options: { clients: number; seconds?: number; transactions?: number; vars: Record<string, string | number>; latencies?: boolean },
): Promise<PgbenchResult> {
  const url = new URL(databaseUrl);
  const args = ['-n', '-M', 'extended', '-f', file, '-c', String(options.clients), '-j', String(Math.min(options.clients, 2))];
  if (options.latencies) args.push('-r');
  if (options.seconds !== undefined) args.push('-T', String(options.seconds));
  else args.push('-t', String(options.transactions ?? 1));
  for (const [k, v] of Object.entries({ ...script.defines, ...options.vars })) args.push('-D', `${k}=${v}`);
  args.push('-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'), url.pathname.slice(1));
  writeFileSync(file, script.text);
  const t0 = performance.now();
  const r = await run(process.env.PGBENCH ?? 'pgbench', args, {
    env: url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {},
    timeoutMs: 600_000,
  });
  const seconds = (performance.now() - t0) / 1000;
  const tps = Number(/tps = ([0-9.]+)/.exec(r.stdout)?.[1] ?? NaN);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(r.stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(r.stdout)?.[1] ?? 0);
  if (r.code !== 0 || !Number.isFinite(tps)) throw new Error(`pgbench failed (exit ${r.code}): ${r.stderr.slice(-1500)} ${r.stdout.slice(-500)}`);
  const listing = r.stdout.split(/statement latencies in milliseconds[^\n]*\n/)[1] ?? '';
  const commandMs = listing
    .split('\n')
    .map((line) => /^\s+([0-9.]+)\s/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  return { tps, transactions, failed, seconds, commandMs, pid: r.pid, stdout: r.stdout, stderr: r.stderr };
}

/** A row value that is not an object (nor null): its text is the value's own. */
function isScalar(value: unknown): value is string | number | bigint | boolean | undefined {
  return value !== null && typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'symbol';
}
