import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import type { AppConfig } from './common/config/config';
import { HttpErrorFilter } from './common/http/http-error.filter';
import { validationPipe } from './common/http/validation';
import { logger } from './common/logging/logger';
import { ApiDocuments } from './modules/docs/api-documents';
import { buildOpenApiDocument } from './modules/docs/openapi';
import { JsonRpcWsAdapter } from './modules/gateway/ws-adapter';
import { MetricsService } from './modules/health/metrics.service';
import { serveConsole } from './modules/console/console-static';

export const MAX_BODY_BYTES = 64 * 1024;
/** A successful read slower than this is logged (faster ones are only counted in /metrics). */
export const SLOW_REQUEST_MS = 1000;

/** Builds the application (HTTP and /client on one Fastify server); the caller listens. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  logger.setLevel(config.logLevel);
  let requestSeq = 0;
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: config.trustProxy,
    genReqId: () => `req-${process.pid}-${(++requestSeq).toString(36)}`,
    logger: false,
    // No Nest middleware in this application: without @fastify/middie a request runs one hook fewer.
    skipMiddie: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, { logger, bufferLogs: false });
  app.useWebSocketAdapter(new JsonRpcWsAdapter(app));
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(validationPipe());
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(MetricsService);
  fastify.addHook('onResponse', (request, reply, done) => {
    const ms = reply.elapsedTime;
    // The route pattern (`/v1/admin/accounts/:account_id`), never the raw URL: bounded label values.
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, ms / 1000);
    // Every request is counted and timed in /metrics; the log keeps every change (not a GET or
    // HEAD), every failure and every slow request (docs/observability.md).
    if (reply.statusCode >= 400 || (request.method !== 'GET' && request.method !== 'HEAD') || ms >= SLOW_REQUEST_MS) {
      logger.event('info', 'http', { operation_id: request.id, method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(ms) }, 'Http');
    }
    done();
  });
  // The API descriptions, generated from the code: /openapi.json, and the Swagger UI reference at /docs.
  const openapi = buildOpenApiDocument(app, config.serviceName);
  app.get(ApiDocuments).setOpenApi(openapi);
  SwaggerModule.setup('docs', app, openapi, {
    raw: false,
    customSiteTitle: `${config.serviceName} API reference`,
    customCss: '.swagger-ui .topbar { display: none }',
    // No call to the public validator service: the page works offline.
    swaggerOptions: { validatorUrl: null, displayOperationId: false, tryItOutEnabled: false },
  });
  // The operator console (docs/console.md): static files of `npm run build`, with their own CSP.
  await serveConsole(app);
  return app;
}
