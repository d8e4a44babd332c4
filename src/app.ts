import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import type { AppConfig } from './common/config/config';
import { HttpErrorFilter } from './common/http/http-error.filter';
import { validationPipe } from './common/http/validation';
import { logger, operationContext } from './common/logging/logger';
import { ApiDocuments } from './modules/docs/api-documents';
import { buildOpenApiDocument } from './modules/docs/openapi';
import { JsonRpcWsAdapter } from './modules/gateway/ws-adapter';
import { MetricsService } from './modules/health/metrics.service';

export const MAX_BODY_BYTES = 64 * 1024;

/** Builds the application (HTTP and /client on one Fastify server); the caller listens. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  logger.setLevel(config.logLevel);
  let requestSeq = 0;
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: config.trustProxy,
    genReqId: () => `req-${process.pid}-${(++requestSeq).toString(36)}`,
    logger: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, { logger, bufferLogs: false });
  app.useWebSocketAdapter(new JsonRpcWsAdapter(app));
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(validationPipe());
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(MetricsService);
  // Every request runs with its id as the operation id of the log lines it causes.
  fastify.addHook('onRequest', (request, _reply, done) => operationContext.run({ operationId: request.id }, done));
  fastify.addHook('onResponse', (request, reply, done) => {
    logger.event('info', 'http', { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'Http');
    // The route pattern (`/v1/admin/accounts/:account_id`), never the raw URL: bounded label values.
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
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
  return app;
}
