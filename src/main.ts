import 'reflect-metadata';
import { createApp } from './app';
import { type AppConfig, ConfigError, loadConfig } from './common/config/config';
import { flushLogs, logger } from './common/logging/logger';

// Log lines are written once per event-loop turn: the last ones go out at exit.
process.on('exit', flushLogs);

/** The start line (docs/spec/design.md section 16): where it listens, the mode, whom it trusts for client IPs, its limits. */
function startLine(config: AppConfig, url: string): Record<string, unknown> {
  return {
    url,
    mode: config.production ? 'production' : config.databaseUrl || config.redisUrl ? 'services' : 'embedded',
    database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})`,
    jobs: config.redisUrl ? 'bullmq' : 'in-process',
    trust_proxy: config.trustProxy === 0 ? 'false: X-Forwarded-For ignored' : `${config.trustProxy} trusted proxies`,
    metrics: config.metricsToken ? 'bearer token' : 'open (loopback, no proxy)',
    limits: {
      session_ttl_seconds: config.sessionTtlSeconds,
      session_max_seconds: config.sessionMaxSeconds,
      nonce_rate_per_minute: config.nonceRatePerMinute,
      auth_rate_per_minute: config.authRatePerMinute,
      max_connections_per_ip: config.maxConnectionsPerIp,
      rfq_rate_per_second: config.rfqRatePerSecond,
      rfq_rate_burst: config.rfqRateBurst,
      public_rate_per_second: config.publicRatePerSecond,
      public_rate_burst: config.publicRateBurst,
      query_rate_per_second: config.queryRatePerSecond,
      query_rate_burst: config.queryRateBurst,
      replay_events_per_second: config.replayEventsPerSecond,
      max_open_rfqs: config.maxOpenRfqs,
    },
  };
}

/** A refused configuration (loadConfig, or DATA_DIR checked as the database opens): its message, exit 78. */
function refuse(error: ConfigError): never {
  process.stderr.write(`${error.message}\n`);
  flushLogs();
  process.exit(78);
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(error);
    throw error;
  }
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp(config);
  } catch (error) {
    if (error instanceof ConfigError) refuse(error);
    throw error;
  }
  await app.listen(config.port, config.host);
  logger.event('info', 'listening', startLine(config, await app.getUrl()), 'Main');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.event('info', 'shutting down', { signal }, 'Main');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (error) {
      logger.event('error', 'shutdown failed', { error: String(error) }, 'Main');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  logger.event('error', 'start-up failed', { error: String(error), stack: (error as Error)?.stack }, 'Main');
  process.exit(1);
});
