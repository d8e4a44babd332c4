/**
 * `npm run chaos -- --seconds 120 --seed N` (docs/spec/design.md section 11, docs/operations.md): three
 * instances as separate processes on a private PostgreSQL cluster and a private Redis (loopback,
 * temp dirs, never the shared servers), taker/maker pairs running RFQ lifecycles spread over the
 * instances (each client reconnects to a surviving instance and resumes its session), while a
 * seeded schedule kills instances (SIGKILL) and restarts them, stops them (SIGTERM), drops the
 * Redis pub/sub connections, restarts Redis and restarts PostgreSQL. At the end: the ledger
 * invariants, and every accepted RFQ filled or failed exactly once. Exits 1 on any lost or
 * doubled RFQ or broken invariant; stops by itself (hard limit: the run + 120 s).
 */
import { Client } from 'pg';
import { ADMIN_TOKEN, EXCHANGE_SIGNING_KEY, JWT_SECRET } from '../test/e2e/harness';
import { violations, pgRows } from '../test/e2e/invariants';
import { journalViolations } from '../test/e2e/support/journal-chain';
import { formatSymbol } from '../src/modules/instruments/domain/symbol';
import { acceptedOutcome, adminOf, openAccepted } from '../test/fleet/checks';
import { Fleet, type Instance, PrivatePostgres, PrivateRedis, buildApp, hasBinaries, sleep, waitFor } from '../test/fleet/fleet';
import { FleetTrader, type LifecycleOutcome, lifecycle } from '../test/fleet/traders';

interface Options {
  seconds: number;
  seed: number;
  instances: number;
  pairs: number;
  build: boolean;
}

function options(argv: string[]): Options {
  const o: Options = { seconds: 120, seed: 1, instances: 3, pairs: 6, build: true };
  for (let i = 0; i < argv.length; i++) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (key === '--seconds') o.seconds = Number(value);
    else if (key === '--seed') o.seed = Number(value);
    else if (key === '--instances') o.instances = Number(value);
    else if (key === '--pairs') o.pairs = Number(value);
    else if (key === '--no-build') {
      o.build = false;
      continue;
    } else throw new Error(`unknown option ${key} (--seconds N --seed N --instances N --pairs N --no-build)`);
    i++;
  }
  for (const [k, v] of Object.entries(o)) if (typeof v === 'number' && (!Number.isInteger(v) || v < 1)) throw new Error(`--${k} must be a positive integer`);
  if (o.instances < 2) throw new Error('--instances must be at least 2 (one must survive every fault)');
  return o;
}

/** mulberry32: the schedule is the seed's. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Fault = 'sigkill' | 'sigterm' | 'pubsub' | 'redis-restart' | 'pg-restart';
const FAULTS: Fault[] = ['sigkill', 'sigterm', 'pubsub', 'redis-restart', 'pg-restart'];

const log = (text: string) => process.stdout.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${text}\n`);

type Pg = PrivatePostgres;
type Redis = PrivateRedis;
type Pair = { taker: FleetTrader; maker: FleetTrader };

/** The instances' configuration: the private servers, and limits raised so that capacity, not a rate limit, is what the faults meet. */
function fleetEnv(pg: Pg, redis: Redis): Record<string, string> {
  return {
    DATABASE_URL: pg.url('legwork'),
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'legwork_chaos',
    JWT_SECRET,
    ADMIN_TOKEN,
    EXCHANGE_SIGNING_KEY,
    TRUST_PROXY: 'true',
    // Behind a proxy /metrics needs its token (docs/spec/design.md section 20).
    METRICS_TOKEN: 'chaos-metrics-token-0123456789abcdef0123456789',
    MARKET_DATA_MAX_AGE_SECONDS: '86400',
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '5',
    MAX_OPEN_RFQS: '10000',
    RFQ_RATE_PER_SECOND: '1000',
    RFQ_RATE_BURST: '1000',
    NONCE_RATE_PER_MINUTE: '10000',
    AUTH_RATE_PER_MINUTE: '10000',
    PUBLIC_RATE_PER_SECOND: '10000',
    PUBLIC_RATE_BURST: '10000',
    QUERY_RATE_PER_SECOND: '10000',
    QUERY_RATE_BURST: '10000',
  };
}

/** One ETH call a week out, listed and priced through the first instance, and the pairs that trade it, spread over the instances. */
async function setUpMarket(instances: Instance[], o: Options): Promise<{ instrument: string; expiry: number; pairs: Pair[] }> {
  const expiry = (Math.floor(Date.now() / 1000 / 86400) + 7) * 86400 + 8 * 3600;
  const instrument = formatSymbol({ asset: 'ETH', expiry, strike: 150_000_000n, kind: 'call' });
  const admin = adminOf(instances[0]);
  const listed = await admin.post('/v1/admin/create-instruments', { asset: 'ETH', expiration: expiry, spot_price: '150', strikes: ['150'] });
  if (listed.status !== 200) throw new Error(`create-instruments: ${listed.status} ${JSON.stringify(listed.body)}`);
  const md = await admin.post('/v1/admin/market-data', { asset: 'ETH', index_price: '150', iv: '0.8' });
  if (md.status !== 200) throw new Error(`market-data: ${md.status}`);
  const pairs: Pair[] = [];
  for (let i = 0; i < o.pairs; i++) {
    const [taker, maker] = await Promise.all([FleetTrader.create(admin, ['taker'], '10000000'), FleetTrader.create(admin, ['quoter'], '10000000')]);
    await taker.connect(instances[i % o.instances]);
    await maker.connect(instances[(i + 1) % o.instances]);
    pairs.push({ taker, maker });
  }
  return { instrument, expiry, pairs };
}

/** Every pair runs lifecycles until the deadline, reconnecting to a surviving instance (a random one first) when its socket dropped. */
function runLoad(
  fleet: Fleet,
  market: { instrument: string; expiry: number; pairs: Pair[] },
  deadline: number,
): { load: Promise<unknown>; outcomes: LifecycleOutcome[] } {
  const outcomes: LifecycleOutcome[] = [];
  const survivors = () => {
    const l = fleet.instances.filter((i) => i.running);
    const k = Math.floor(Math.random() * Math.max(1, l.length));
    return [...l.slice(k), ...l.slice(0, k)];
  };
  const ensure = async (t: FleetTrader) => {
    if (!t.connected) await t.reconnect(survivors());
    return t.connected;
  };
  const runPair = async ({ taker, maker }: Pair, n: number) => {
    while (Date.now() < deadline) {
      if (!(await ensure(taker)) || !(await ensure(maker))) {
        await sleep(300);
        continue;
      }
      const out = await lifecycle(taker, maker, market.instrument, market.expiry, n++ % 2 ? 'sell' : 'buy');
      outcomes.push(out);
      if (!out.accepted) await sleep(200);
    }
  };
  return { load: Promise.all(market.pairs.map((p, i) => runPair(p, i))), outcomes };
}

/** One fault, `pause` ms long where it has a length; false when it could not apply (a single instance left). */
async function inject(
  fault: Fault,
  pause: number,
  servers: { fleet: Fleet; pg: Pg; redis: Redis },
  pick: <T>(list: T[]) => T,
  random: () => number,
): Promise<boolean> {
  if (fault === 'sigkill' || fault === 'sigterm') {
    const candidates = servers.fleet.instances.filter((i) => i.running);
    if (candidates.length < 2) return false;
    const victim: Instance = pick(candidates);
    log(`${fault} ${victim.name}, back in ${pause} ms`);
    await victim.stop(fault === 'sigkill' ? 'SIGKILL' : 'SIGTERM');
    await sleep(pause);
    await victim.start();
  } else if (fault === 'pubsub') {
    log(`CLIENT KILL TYPE pubsub: ${servers.redis.killPubsub()} connections dropped`);
  } else if (fault === 'redis-restart') {
    log(`Redis down for ${pause} ms`);
    await servers.redis.stop();
    await sleep(pause);
    await servers.redis.start();
  } else {
    log(`PostgreSQL down for ${pause} ms`);
    await servers.pg.stop(random() < 0.5 ? 'fast' : 'immediate');
    await sleep(pause);
    await servers.pg.start();
  }
  return true;
}

/** The seed's schedule: a fault every 4 to 10 s until 8 s before the deadline. Returns how many of each were injected. */
async function injectFaults(servers: { fleet: Fleet; pg: Pg; redis: Redis }, random: () => number, deadline: number): Promise<Record<Fault, number>> {
  const faults: Record<Fault, number> = { sigkill: 0, sigterm: 0, pubsub: 0, 'redis-restart': 0, 'pg-restart': 0 };
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
  await sleep(3000);
  while (Date.now() < deadline - 8000) {
    const fault = pick(FAULTS);
    const pause = 1000 + Math.floor(random() * 3000);
    try {
      if (!(await inject(fault, pause, servers, pick, random))) continue;
      faults[fault] += 1;
    } catch (error) {
      log(`fault ${fault} could not be completed: ${String(error)}`);
    }
    await sleep(4000 + Math.floor(random() * 6000));
  }
  return faults;
}

/** After the load: every instance back, every accepted RFQ ended, then what was lost, doubled or broken. */
async function verify(fleet: Fleet, pg: Pg, outcomes: LifecycleOutcome[]) {
  for (const i of fleet.instances) if (!i.running) await i.start();
  const db = new Client({ connectionString: pg.url('legwork') });
  await db.connect();
  try {
    const drained = await waitFor(async () => (await openAccepted(db)) === 0, 30_000, 'accepted RFQs finished').catch(() => -1);
    const outcome = await acceptedOutcome(db);
    const seen = outcomes.filter((x) => x.accepted).map((x) => x.rfqId!);
    const { rows: ends } = await db.query(`SELECT id, state FROM rfqs WHERE id::text = ANY($1::text[])`, [seen]);
    const endOf = new Map(ends.map((r: { id: string; state: string }) => [r.id, r.state]));
    const lost = seen.filter((id) => !['filled', 'failed'].includes(endOf.get(id) ?? 'missing')).length + outcome.open;
    const broken = await violations(pgRows(db));
    // The journal (docs/receipts.md, crash cases): kills between a fill's COMMIT and its receipt, and
    // in the middle of a batch, leave staged rows that the instances' sweeps chain within seconds;
    // then one unbroken chain, every signature verified, exactly one receipt per fill and revert.
    const stagedLeft = async () => Number((await db.query(`SELECT count(*)::int AS n FROM journal_pending`)).rows[0].n);
    await waitFor(async () => (await stagedLeft()) === 0, 30_000, 'staged receipts chained').catch(() => -1);
    const journal = await journalViolations(db);
    return { drained, outcome, seen, lost, broken: [...broken, ...journal.map((v) => `journal: ${v}`)] };
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  if (!hasBinaries()) throw new Error('needs redis-server and the PostgreSQL server binaries (the newest /usr/lib/postgresql/<version>/bin, or PG_BIN)');
  const hardLimit = setTimeout(
    () => {
      log('hard time limit reached: giving up');
      process.exit(2);
    },
    (o.seconds + 120) * 1000,
  );
  hardLimit.unref();
  const random = prng(o.seed);
  if (o.build) buildApp();
  log(`seed ${o.seed}, ${o.seconds} s, ${o.instances} instances, ${o.pairs} taker/maker pairs`);

  const [pg, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
  pg.psql('CREATE DATABASE legwork');
  const fleet = new Fleet(fleetEnv(pg, redis));
  const stopHandlers = async () => {
    await fleet.stopAll().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await pg.destroy().catch(() => undefined);
  };
  process.once('SIGINT', () => void stopHandlers().then(() => process.exit(130)));
  try {
    const market = await setUpMarket(await fleet.add(o.instances), o);
    const deadline = Date.now() + o.seconds * 1000;
    const { load, outcomes } = runLoad(fleet, market, deadline);
    const faults = await injectFaults({ fleet, pg, redis }, random, deadline);
    await load;
    log('load stopped: waiting for every accepted RFQ to end');
    const { drained, outcome, seen, lost, broken } = await verify(fleet, pg, outcomes);
    for (const p of market.pairs) await Promise.all([p.taker.disconnect(), p.maker.disconnect()]);
    const summary = {
      seed: o.seed,
      seconds: o.seconds,
      faults_injected: Object.values(faults).reduce((a, b) => a + b, 0),
      faults,
      lifecycles: outcomes.length,
      accepted: outcome.accepted,
      accepted_seen_by_takers: seen.length,
      filled: outcome.filled,
      failed: outcome.failed,
      lost,
      doubled: outcome.doubled,
      longest_accept_to_end_seconds: outcome.longestWaitSeconds,
      drained_after_ms: drained,
      reconnects: market.pairs.reduce((s, p) => s + p.taker.reconnects + p.maker.reconnects, 0),
      invariant_violations: broken,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    const ok = lost === 0 && outcome.doubled === 0 && broken.length === 0 && drained >= 0;
    log(ok ? 'chaos: ok' : 'chaos: FAILED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await stopHandlers();
    log(`instance logs were in ${fleet.logDir}`);
    fleet.cleanup();
  }
}

main().catch((error) => {
  process.stderr.write(`chaos: ${String((error as Error)?.stack ?? error)}\n`);
  process.exit(2);
});
