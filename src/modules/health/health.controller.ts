import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database, withTimeout } from '../../common/database/database';
import { REDIS } from '../../common/infrastructure.module';
import { Public } from '../auth/access';

type DependencyState = 'up' | 'down' | 'embedded' | 'in-process';

/** Readiness: 200 when the database and Redis answer, 503 when one is down. */
@Controller()
export class HealthController {
  constructor(
    private readonly database: Database,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('health')
  @Public()
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [db, redis] = await Promise.all([this.databaseState(), this.redisState()]);
    const ok = db !== 'down' && redis !== 'down';
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'degraded', service: this.config.serviceName, database: db, redis };
  }

  /** Liveness: the process answers. */
  @Get('health/live')
  @Public()
  live() {
    return { status: 'ok' };
  }

  private async databaseState(): Promise<DependencyState> {
    if (!(await this.database.ping())) return 'down';
    return this.database.embedded ? 'embedded' : 'up';
  }

  private async redisState(): Promise<DependencyState> {
    if (!this.redis) return 'in-process';
    try {
      await withTimeout(this.redis.ping(), 1000);
      return 'up';
    } catch {
      return 'down';
    }
  }
}
