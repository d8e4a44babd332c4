import { Global, Module } from '@nestjs/common';
import { HealthRoutes } from './health.routes';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/**
 * Health checks and metrics. Global so that any module can inject MetricsService without
 * importing this one (metrics are cross-cutting, like the logger).
 */
@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, HealthRoutes], exports: [MetricsService] })
export class HealthModule {}
