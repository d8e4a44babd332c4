import 'reflect-metadata';
import { createApp } from './app';
import { ConfigError, loadConfig } from './common/config/config';
import { flushLogs, logger } from './common/logging/logger';

// Log lines are written once per event-loop turn: the last ones go out at exit.
process.on('exit', flushLogs);

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  logger.event(
    'info',
    'listening',
    {
      url: await app.getUrl(),
      database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})`,
      jobs: config.redisUrl ? 'bullmq' : 'in-process',
    },
    'Main',
  );

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
