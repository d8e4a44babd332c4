import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/access';
import { MetricsService } from './metrics.service';

/** Prometheus scrape endpoint. Public like /health: put it behind the network boundary in production. */
@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @Public()
  @ApiOperation({ summary: 'Prometheus metrics of this instance (text exposition format 0.0.4)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Every series of this instance', content: { 'text/plain': { schema: { type: 'string' } } } })
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await this.metrics.scrape();
    void reply.header('content-type', contentType);
    return body;
  }
}
