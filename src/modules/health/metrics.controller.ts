import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiSecurity, ApiTags, ApiUnauthorizedResponse, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { Public } from '../../common/access/access';
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
  // No credential, or the metrics token when METRICS_TOKEN is set (the header is read from the request, not declared as a parameter).
  @ApiSecurity({})
  @ApiSecurity('metrics_token')
  @ApiUnauthorizedResponse({
    description: 'METRICS_TOKEN is set and the request does not carry it',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) } } },
  })
  async scrape(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (this.tokenDigest) {
      const presented = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!presented || !timingSafeEqual(digest(presented), this.tokenDigest)) throw new AppError('AUTH_REQUIRED', 'this endpoint takes the metrics token');
    }
    const { contentType, body } = await this.metrics.scrape();
    void reply.header('content-type', contentType);
    return body;
  }
}
