import type { RouteResult } from '@legwork/protocol';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database, withTimeout } from '../../common/database/database';
import { REDIS } from '../../common/infrastructure.module';
import { ShutdownState } from '../../common/shutdown-state';
import { HttpRoute, type RouteContext } from '../../common/http/http-route';

type HealthStatus = RouteResult<'operations.health'>;
type DependencyState = HealthStatus['database'];

/** Readiness: 200 when the database and Redis answer, 503 when one is down or the instance is draining. Liveness: the process answers. */
@Injectable()
export class HealthRoutes {
  constructor(
    private readonly database: Database,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly shutdown: ShutdownState,
  ) {}

  @HttpRoute('operations.health')
  health(_input: unknown, { reply }: RouteContext<'operations.health'>): Promise<HealthStatus> {
    return this.check(reply);
  }

  /** The same check as /health, under the name load balancers and Kubernetes probes expect. */
  @HttpRoute('operations.health-ready')
  ready(_input: unknown, { reply }: RouteContext<'operations.health-ready'>): Promise<HealthStatus> {
    return this.check(reply);
  }

  @HttpRoute('operations.health-live')
  live(): RouteResult<'operations.health-live'> {
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
