import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown, type BeforeApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { Clock } from './clock';
import { APP_CONFIG, type AppConfig } from './config/config';
import { Database, type EntityClasses, databasePoolSize } from './database/database';
import { Broadcaster, InProcessBroadcaster, RedisBroadcaster } from './broadcast/broadcaster';
import { Notifier } from './broadcast/notifier';
import { ViewVersions } from './broadcast/view-versions';
import { BullMqJobRunner } from './jobs/bullmq-job-runner';
import { InProcessJobRunner } from './jobs/in-process-job-runner';
import { JobRunner } from './jobs/job-runner';
import { logger } from './logging/logger';
import { MemoryPresenceStore, Presence, RedisPresenceStore } from './presence/presence';
import { PublicRateLimit, QueryRateLimit, RfqRateLimit } from './rate-limit/public-rate-limit';
import { InMemoryRateLimiter, RateLimiter, RedisRateLimiter } from './rate-limit/rate-limiter';
import { quitRedis } from './redis/close';
import { ShutdownState } from './shutdown-state';

/** The app's entity classes (src/app-entities.ts), given to `InfrastructureModule.forRoot`. */
const DATABASE_ENTITIES = Symbol('DATABASE_ENTITIES');

/** The shared Redis command connection, or null in the embedded default. */
export const REDIS = Symbol('REDIS');

function redisClient(url: string, purpose: string, options: { blocking?: boolean; pipelined?: boolean } = {}): Redis {
  const client = new Redis(url, {
    // Commands fail fast while Redis is down (health says 503), except BullMQ's blocking ones.
    maxRetriesPerRequest: options.blocking ? null : 1,
    enableOfflineQueue: true,
    // Commands issued in one event-loop turn go out in one write (broadcasts, rate-limit scripts).
    enableAutoPipelining: options.pipelined ?? false,
    connectionName: `legwork-${purpose}`,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  client.on('error', (error) => logger.event('warn', 'redis connection error', { purpose, error: String(error) }, 'Redis'));
  return client;
}

/**
 * The ports of architecture.md with their adapters chosen from the configuration: database
 * (PostgreSQL or PGlite), jobs (BullMQ or in-process), broadcaster (Redis or in-process),
 * rate limits (Redis or memory).
 */
@Global()
@Module({
  providers: [
    Clock,
    Notifier,
    ShutdownState,
    {
      provide: Database,
      inject: [APP_CONFIG, DATABASE_ENTITIES],
      useFactory: (config: AppConfig, entities: EntityClasses) => Database.open(config, entities),
    },
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => (config.redisUrl ? redisClient(config.redisUrl, 'commands', { pipelined: true }) : null),
    },
    {
      provide: JobRunner,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redisUrl
          ? new BullMqJobRunner(redisClient(config.redisUrl, 'bullmq', { blocking: true }), `${config.redisPrefix}:bull`, databasePoolSize(config))
          : new InProcessJobRunner(databasePoolSize(config)),
    },
    {
      provide: Broadcaster,
      inject: [APP_CONFIG, REDIS],
      useFactory: async (config: AppConfig, redis: Redis | null) => {
        if (!config.redisUrl || !redis) return new InProcessBroadcaster();
        const broadcaster = new RedisBroadcaster(redis, redisClient(config.redisUrl, 'subscriber', { blocking: true }), config.redisPrefix);
        await broadcaster.start();
        return broadcaster;
      },
    },
    {
      provide: ViewVersions,
      inject: [Database],
      useFactory: (database: Database) => new ViewVersions(database),
    },
    {
      provide: RateLimiter,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null) => (redis ? new RedisRateLimiter(redis, config.redisPrefix) : new InMemoryRateLimiter()),
    },
    {
      provide: Presence,
      inject: [APP_CONFIG, REDIS, Clock],
      useFactory: (config: AppConfig, redis: Redis | null, clock: Clock) =>
        new Presence(redis ? new RedisPresenceStore(redis, config.redisPrefix) : new MemoryPresenceStore(), () => clock.nowMs()),
    },
    {
      provide: PublicRateLimit,
      inject: [APP_CONFIG, RateLimiter],
      useFactory: (config: AppConfig, limiter: RateLimiter) => new PublicRateLimit(limiter, config.publicRatePerSecond, config.publicRateBurst),
    },
    {
      provide: QueryRateLimit,
      inject: [APP_CONFIG, RateLimiter],
      useFactory: (config: AppConfig, limiter: RateLimiter) => PublicRateLimit.forQueries(limiter, config.queryRatePerSecond, config.queryRateBurst),
    },
    {
      provide: RfqRateLimit,
      inject: [APP_CONFIG, RateLimiter],
      useFactory: (config: AppConfig, limiter: RateLimiter) => PublicRateLimit.forRfq(limiter, config.rfqRatePerSecond, config.rfqRateBurst),
    },
  ],
  exports: [
    Clock,
    Notifier,
    ShutdownState,
    Database,
    REDIS,
    JobRunner,
    Broadcaster,
    ViewVersions,
    RateLimiter,
    PublicRateLimit,
    QueryRateLimit,
    RfqRateLimit,
    Presence,
  ],
})
export class InfrastructureModule implements BeforeApplicationShutdown, OnApplicationShutdown {
  /** The module with the app's entities (`common` imports no module: the app passes its list in). */
  static forRoot(entities: EntityClasses): DynamicModule {
    return { module: InfrastructureModule, providers: [{ provide: DATABASE_ENTITIES, useValue: entities }] };
  }

  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
    private readonly broadcaster: Broadcaster,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly presence: Presence,
  ) {}

  /** Finish the jobs in flight before the connections they need are closed. */
  async beforeApplicationShutdown(): Promise<void> {
    const started = Date.now();
    await this.jobs.close();
    logger.event('info', 'shutdown: jobs stopped', { ms: Date.now() - started }, 'Jobs');
  }

  async onApplicationShutdown(): Promise<void> {
    const started = Date.now();
    this.presence.stop();
    await this.broadcaster.close();
    if (this.redis) await quitRedis(this.redis);
    const closing = Date.now();
    await this.database.close();
    logger.event('info', 'shutdown: connections closed', { broadcast_redis_ms: closing - started, database_ms: Date.now() - closing }, 'Database');
  }
}
