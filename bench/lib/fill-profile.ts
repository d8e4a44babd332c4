import type { Lifecycle } from './exchange';
import { percentile } from './stats';
import type { TracedStatement } from '../servers/pg-trace';
import type { TracedCommand } from '../servers/redis-trace';

/**
 * Where the fill step's time goes (accept → `filled` at the taker), from one window of the F5
 * load with every SQL statement and every Redis command of the server timed (pg-trace.ts,
 * redis-trace.ts) and the client's own times of each lifecycle. All times are epoch milliseconds
 * of the same machine, so the server's and the client's can be subtracted. Per fill:
 *
 * - `accept_to_enqueued`: the accept statement's reply → the fill job's `addStandardJob` reply;
 * - `queue_pickup`: → the first statement of the fill job (accepted → submitting): the worker's
 *   wake-up (marker, `moveToActive`) and any wait for a free worker slot;
 * - `submitting_move`: that statement;
 * - `to_fill_tx`: → `START TRANSACTION` of the fill transaction;
 * - `fill_tx`: → its `COMMIT` answered; of which `fill_tx_head_lock` (the journal head's
 *   `SELECT ... FOR UPDATE`, with the fee account's credit in the same statement: mostly the wait
 *   for the previous fill's COMMIT), `fill_tx_head_held` (that statement answered → the COMMIT
 *   answered: the head's hold, which serializes fills; not a part of the sum), `fill_tx_balance_lock`
 *   (the balances `FOR UPDATE` of the taker's and the maker's rows), `fill_tx_fee_credit` (the fee
 *   account's credit when it is a statement of its own; 0 where it is part of the head lock's), the other statements, and
 *   `fill_tx_node` (time between statements, in the server);
 * - `commit_to_publish`: → the `PUBLISH` of the `filled` notification;
 * - `notification`: → the `filled` event at the taker (Redis pub/sub, the gateway, the socket).
 *
 * Counts: statements, transactions and Redis commands (by name, BullMQ scripts by script name)
 * per fill, over the whole window (the lifecycle's other steps and the expiry jobs included).
 */
export interface FillProfile {
  fills: number;
  /** Per stage: p50, p99 and mean (ms), and the mean's share of the mean accept → filled. */
  stages: Record<string, { p50: number; p99: number; mean: number; share: number }>;
  per_fill: { statements: number; transactions: number; redis_commands: number; redis_by_name: Record<string, number>; fill_tx_statements: number };
}

const SUBMITTING = /^\s*WITH moved AS \(UPDATE rfqs SET state/;
const LOCK_FOR_FILL = /FOR UPDATE OF r\b/;
/** The head's lock; a fill's also credits the fee account (JournalRepository.lockHead, `FROM journal_head h, fee`). */
const HEAD_LOCK = /FROM journal_head h(, fee)? WHERE h\.id = 1 FOR UPDATE/;
const BALANCE_LOCK = /FROM balances WHERE account_id = ANY\(.*FOR UPDATE/s;
/** The fee account's credit as a statement of its own; inside the head lock's statement it is counted there only. */
const FEE_CREDIT = /INSERT INTO balances \(account_id, total\)/;
const BEGIN = /^\s*(START TRANSACTION|BEGIN)\b/i;
const COMMIT = /^\s*COMMIT\b/i;

const end = (s: { at: number; ms: number }) => s.at + s.ms;

/** One lifecycle's fill as the traces saw it: the statements and commands its stages run between. */
interface FillSpan {
  accept: TracedStatement;
  submitting: TracedStatement;
  enqueued: TracedCommand;
  published: TracedCommand;
  /** The fill transaction's START TRANSACTION, its COMMIT, and every statement from one to the other. */
  begin: TracedStatement;
  commit: TracedStatement;
  inside: TracedStatement[];
}

type Connections = Map<number, Array<{ s: TracedStatement; i: number }>>;

/** The lifecycle's fill in the traces; null when a part of it is missing from the window. */
function findFill(l: Lifecycle, statements: TracedStatement[], commands: TracedCommand[], byConnection: Connections): FillSpan | null {
  const has = (s: TracedStatement) => s.values.includes(l.rfqId);
  const accept = statements.find((s) => has(s) && s.text.includes('INSERT INTO accepts'));
  const submitting = statements.find((s) => has(s) && SUBMITTING.test(s.text) && s.values.includes('submitting') && s.values.includes('accepted'));
  const lock = statements.find((s) => has(s) && LOCK_FOR_FILL.test(s.text));
  const enqueued = commands.find((c) => c.name.startsWith('addStandardJob') && c.args.some((a) => a.includes(`fill-${l.rfqId}`)));
  const published = commands.find((c) => c.name === 'publish' && c.args[1]?.includes(l.rfqId) && c.args[1].includes('"filled"'));
  if (!accept || !submitting || !lock || !enqueued || !published) return null;
  const tx = byConnection.get(lock.connection)!;
  const at = tx.findIndex((x) => x.s === lock);
  let b = at;
  while (b > 0 && !BEGIN.test(tx[b].s.text)) b--;
  let c = at;
  while (c < tx.length - 1 && !COMMIT.test(tx[c].s.text)) c++;
  if (!BEGIN.test(tx[b].s.text) || !COMMIT.test(tx[c].s.text)) return null;
  const inside = tx.slice(b, c + 1).map((x) => x.s);
  return { accept, submitting, enqueued, published, begin: tx[b].s, commit: tx[c].s, inside };
}

/** One fill's stages, in the order the profile lists them. */
function addStages(add: (stage: string, ms: number) => void, l: Lifecycle, f: FillSpan): void {
  const { accept, submitting, enqueued, published, inside } = f;
  const head = inside.find((s) => HEAD_LOCK.test(s.text));
  const balances = inside.find((s) => BALANCE_LOCK.test(s.text));
  const fee = inside.find((s) => FEE_CREDIT.test(s.text) && s !== head);
  const statementMs = inside.reduce((sum, s) => sum + s.ms, 0);
  const txMs = end(f.commit) - f.begin.at;
  add('accept_to_enqueued', end(enqueued) - end(accept));
  add('queue_pickup', submitting.at - end(enqueued));
  add('submitting_move', submitting.ms);
  add('to_fill_tx', f.begin.at - end(submitting));
  add('fill_tx', txMs);
  add('fill_tx_head_lock', head?.ms ?? 0);
  // The head's hold as the server's histogram measures it: the lock statement answered → the COMMIT answered.
  if (head) add('fill_tx_head_held', end(f.commit) - end(head));
  add('fill_tx_balance_lock', balances?.ms ?? 0);
  add('fill_tx_fee_credit', fee?.ms ?? 0);
  add('fill_tx_other_statements', statementMs - (head?.ms ?? 0) - (balances?.ms ?? 0) - (fee?.ms ?? 0));
  add('fill_tx_node', txMs - statementMs);
  add('commit_to_publish', published.at - end(f.commit));
  add('notification', l.filledAt - published.at);
  add('accept_reply_to_filled', l.filledAt - l.acceptReplyAt);
  add('accept_commit_to_filled', l.filledAt - end(accept));
}

export function fillProfile(statements: TracedStatement[], commands: TracedCommand[], lifecycles: Lifecycle[]): FillProfile {
  const byConnection: Connections = new Map();
  statements.forEach((s, i) => {
    let list = byConnection.get(s.connection);
    if (!list) byConnection.set(s.connection, (list = []));
    list.push({ s, i });
  });
  const samples: Record<string, number[]> = {};
  const add = (stage: string, ms: number) => (samples[stage] ??= []).push(ms);
  let txStatements = 0;
  let fills = 0;
  for (const l of lifecycles) {
    const fill = findFill(l, statements, commands, byConnection);
    if (!fill) continue;
    fills++;
    txStatements += fill.inside.length;
    addStages(add, l, fill);
  }
  const total = mean(samples.accept_commit_to_filled ?? []);
  const stages: FillProfile['stages'] = {};
  for (const [stage, list] of Object.entries(samples)) {
    stages[stage] = { p50: percentile(list, 50), p99: percentile(list, 99), mean: mean(list), share: mean(list) / total };
  }
  const byName: Record<string, number> = {};
  for (const c of commands) byName[c.name] = (byName[c.name] ?? 0) + 1;
  const n = Math.max(1, fills);
  for (const k of Object.keys(byName)) byName[k] = byName[k] / n;
  return {
    fills,
    stages,
    per_fill: {
      statements: statements.length / n,
      transactions: statements.filter((s) => BEGIN.test(s.text)).length / n,
      redis_commands: commands.length / n,
      redis_by_name: Object.fromEntries(Object.entries(byName).sort((a, b) => b[1] - a[1])),
      fill_tx_statements: txStatements / n,
    },
  };
}

function mean(list: number[]): number {
  return list.length ? list.reduce((a, b) => a + b, 0) / list.length : NaN;
}

/** The profile as a markdown table (bench/results/performance.md, the F5 details of the report). */
export function fillProfileTable(p: FillProfile): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
  const lines = [
    `${p.fills} fills; per fill ${p.per_fill.statements.toFixed(1)} SQL statements (${p.per_fill.fill_tx_statements.toFixed(1)} in the fill transaction), ${p.per_fill.redis_commands.toFixed(1)} Redis commands`,
    '',
    '| stage | p50 ms | p99 ms | mean ms | share of mean |',
    '|---|---|---|---|---|',
  ];
  for (const [stage, s] of Object.entries(p.stages)) lines.push(`| ${stage} | ${f(s.p50)} | ${f(s.p99)} | ${f(s.mean)} | ${(s.share * 100).toFixed(0)} % |`);
  lines.push('', '| Redis command (per fill) | count |', '|---|---|');
  for (const [name, count] of Object.entries(p.per_fill.redis_by_name)) lines.push(`| ${name} | ${count.toFixed(2)} |`);
  return lines.join('\n');
}
