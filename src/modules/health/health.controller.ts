import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database, withTimeout } from '../../common/database/database';
import { REDIS } from '../../common/infrastructure.module';
import { ShutdownState } from '../../common/shutdown-state';
import { Public } from '../../common/access/access';
const DEPENDENCY_STATES = ['up', 'down', 'embedded', 'in-process'] as const;
type DependencyState = (typeof DEPENDENCY_STATES)[number];

/** Body of GET /health and GET /health/ready. */
export class HealthStatus {
  @ApiProperty({
    enum: ['ok', 'degraded', 'draining'],
    description: '`degraded` (with status 503) when a dependency is down; `draining` (503) once the instance is shutting down (SIGTERM)',
  })
  status: 'ok' | 'degraded' | 'draining';

  @ApiProperty({ example: 'Legwork' })
  service: string;

  @ApiProperty({ enum: DEPENDENCY_STATES, description: '`embedded`: PGlite (no DATABASE_URL)' })
  database: DependencyState;

  @ApiProperty({ enum: DEPENDENCY_STATES, description: '`in-process`: no REDIS_URL' })
  redis: DependencyState;
}

export class LiveStatus {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

/** Readiness: 200 when the database and Redis answer, 503 when one is down or the instance is draining. Liveness: the process answers. */
@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    private readonly database: Database,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Readiness: the database and Redis answer' })
  @ApiOkResponse({ type: HealthStatus })
  @ApiServiceUnavailableResponse({ type: HealthStatus, description: 'A dependency is down' })
  health(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthStatus> {
    return this.check(reply);
  }

  /** The same check as /health, under the name load balancers and Kubernetes probes expect. */
  @Get('health/ready')
  @Public()
  @ApiOperation({ summary: 'Readiness (same check as /health)' })
  @ApiOkResponse({ type: HealthStatus })
  @ApiServiceUnavailableResponse({ type: HealthStatus, description: 'A dependency is down' })
  ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthStatus> {
    return this.check(reply);
  }

  @Get('health/live')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: LiveStatus })
  live(): LiveStatus {
    return { status: 'ok' };
  }

  private async check(reply: FastifyReply): Promise<HealthStatus> {
    const [db, redis] = await Promise.all([this.databaseState(), this.redisState()]);
    const ok = db !== 'down' && redis !== 'down';
    const draining = this.shutdown.draining;
    void reply.status(ok && !draining ? 200 : 503);
    return { status: draining ? 'draining' : ok ? 'ok' : 'degraded', service: this.config.serviceName, database: db, redis };
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
