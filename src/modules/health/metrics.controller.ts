import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { Public } from '../auth/access';
import { MetricsService } from './metrics.service';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Prometheus scrape endpoint. Open like /health unless METRICS_TOKEN is set; then it takes
 * `Authorization: Bearer <METRICS_TOKEN>` (constant-time compare), else 401 (docs/spec/design.md section 0).
 */
@ApiTags('operations')
@Controller()
export class MetricsController {
  private readonly tokenDigest: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.tokenDigest = config.metricsToken ? digest(config.metricsToken) : null;
  }

  @Get('metrics')
  @Public()
  @ApiOperation({ summary: 'Prometheus metrics of this instance (text exposition format 0.0.4)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Every series of this instance', content: { 'text/plain': { schema: { type: 'string' } } } })
  async scrape(@Res({ passthrough: true }) reply: FastifyReply, @Headers('authorization') authorization?: string): Promise<string> {
    if (this.tokenDigest) {
      const presented = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
      if (!presented || !timingSafeEqual(digest(presented), this.tokenDigest)) throw new AppError('AUTH_REQUIRED', 'this endpoint takes the metrics token');
    }
    const { contentType, body } = await this.metrics.scrape();
    void reply.header('content-type', contentType);
    return body;
  }
}
