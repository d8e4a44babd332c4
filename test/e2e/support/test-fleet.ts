import { Fleet, type Instance, PrivatePostgres, PrivateRedis, buildAppUnlessPrebuilt } from '../../fleet/fleet';
import { ADMIN_TOKEN, EXCHANGE_SIGNING_KEY, JWT_SECRET, METRICS_TOKEN } from '../harness';

/** Instances as separate processes on one private PostgreSQL database and one private Redis. */
export interface TestFleet {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  fleet: Fleet;
  instances: Instance[];
  /** The database every instance uses. */
  databaseUrl: string;
  /** Stops the instances (Redis restarted first if a test stopped it), Redis and PostgreSQL. */
  stop(): Promise<void>;
}

/**
 * The multi-instance e2e tests' one setup: builds dist, starts a private PostgreSQL and Redis, and
 * `count` instances behind TRUST_PROXY (hence METRICS_TOKEN: the start refuses without one,
 * design.md 20), the first alone (it runs the migrations). Limits are raised so that a test's
 * bursts are refused by the rule it checks, not by a rate.
 */
export async function startTestFleet(count: number, redisPrefix: string, env: Record<string, string> = {}): Promise<TestFleet> {
  buildAppUnlessPrebuilt();
  const [pg, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
  pg.psql('CREATE DATABASE legwork');
  const databaseUrl = pg.url('legwork');
  const fleet = new Fleet({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redisPrefix,
    JWT_SECRET,
    ADMIN_TOKEN,
    EXCHANGE_SIGNING_KEY,
    TRUST_PROXY: 'true',
    METRICS_TOKEN,
    MARKET_DATA_MAX_AGE_SECONDS: '3600',
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    DATABASE_POOL_SIZE: '5',
    MAX_OPEN_RFQS: '1000',
    RFQ_RATE_PER_SECOND: '1000',
    RFQ_RATE_BURST: '1000',
    NONCE_RATE_PER_MINUTE: '1000',
    AUTH_RATE_PER_MINUTE: '1000',
    ...env,
  });
  let instances: Instance[];
  try {
    instances = await fleet.add(count);
  } catch (error) {
    await fleet.stopAll();
    await redis.stop();
    await pg.destroy();
    throw error;
  }
  return {
    pg,
    redis,
    fleet,
    instances,
    databaseUrl,
    async stop() {
      if (!redis.running) await redis.start();
      await fleet.stopAll();
      await redis.stop();
      await pg.destroy();
      fleet.cleanup();
    },
  };
}
