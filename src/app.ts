import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { AppModule } from './app.module';
import type { AppConfig } from './common/config/config';
import { preparePrivateDataDir } from './common/database/embedded';
import { HttpErrorFilter } from './common/http/http-error.filter';
import { limitPublicRoutes } from './common/http/public-limit.hook';
import { requestIdOf } from './common/logging/trace-ids';
import { PublicRateLimit } from './common/rate-limit/public-rate-limit';
import { validationPipe } from './common/http/validation';
import { logger } from './common/logging/logger';
import { ApiDocumentsService } from './modules/docs/api-documents.service';
import { declaredRouteList, serveDeclaredRoutes } from './common/http/declared-routes';
import { AuditTrail } from './modules/audit/audit-trail.interceptor';
import { AuthGuard } from './modules/auth/auth.guard';
import { buildOpenApiDocument, controllerRoutes } from './modules/docs/openapi';
import { JsonRpcWsAdapter } from './modules/gateway/ws-adapter';
import { MetricsService } from './modules/health/metrics.service';
import { serveConsole } from './modules/console/console-static';

const MAX_BODY_BYTES = 64 * 1024;
/** A request must be answered within this (docs/spec/design.md section 10); its headers must arrive within HEADERS_TIMEOUT_MS. */
const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
/**
 * A shutdown gives the HTTP requests in flight this long (docs/spec/design.md section 11, as the
 * gateway's calls), then cuts every connection still open: a client that stopped reading, or never
 * finished its request, held a test's close for about 60 s.
 */
const HTTP_DRAIN_MS = 5000;

/** docs/spec/design.md section 10: on every response; /docs gets its own CSP (the Swagger UI page and its assets). */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};
const DOCS_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Its own scripts and styles only; the UI sets inline styles on its elements, and its logo is a data: URL.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};
/** A successful read slower than this is logged (faster ones are only counted in /metrics). */
const SLOW_REQUEST_MS = 1000;

/**
 * Before any route is registered: each one not declared with an authenticated access gets the
 * public bucket (docs/spec/design.md section 16).
 */
function limitUnauthenticatedRoutes(app: NestFastifyApplication, config: AppConfig): void {
  const authenticated = new Set(
    [...controllerRoutes(app), ...declaredRouteList().map((route) => ({ ...route, access: route.declaration.access }))]
      .filter((route) => route.access?.kind !== 'public')
      .map((route) => `${route.method.toUpperCase()} ${route.path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`),
  );
  const rule = { ratePerSecond: config.publicRatePerSecond, burst: config.publicRateBurst };
  const fastify = app.getHttpAdapter().getInstance();
  limitPublicRoutes(fastify, (method, url) => authenticated.has(`${method} ${url}`), app.get(PublicRateLimit), config.trustProxy, rule);
}

/** Every response counted and timed in /metrics; the log keeps every change, every failure and every slow request. */
function countAndLogResponses(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const ms = reply.elapsedTime;
    // The route pattern (`/v1/admin/accounts/:account_id`), never the raw URL: bounded label values.
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, ms / 1000);
    // Every request is counted and timed in /metrics; the log keeps every change (not a GET or
    // HEAD), every failure and every slow request (docs/observability.md).
    if (reply.statusCode >= 400 || (request.method !== 'GET' && request.method !== 'HEAD') || ms >= SLOW_REQUEST_MS) {
      logger.event(
        'info',
        'http',
        { request_id: request.id, method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(ms) },
        'Http',
      );
    }
    done();
  });
}

/** At close, the connections still open after HTTP_DRAIN_MS are cut (Node's own request timeouts stop at close). */
function boundHttpDrain(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done) => {
    const server = fastify.server;
    const cut = setTimeout(() => server.closeAllConnections(), HTTP_DRAIN_MS);
    cut.unref();
    server.once('close', () => clearTimeout(cut));
    done();
  });
}

/** Builds the application (HTTP and /client on one Fastify server); the caller listens. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  logger.setLevel(config.logLevel);
  // Before Nest starts (an error inside its start exits the process): a DATA_DIR others can write is refused here.
  if (!config.databaseUrl) preparePrivateDataDir(config.dataDir);
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    // N trusted hops (proxy-addr reads a number as a hop count); the limits use common/http/client-ip.
    trustProxy: config.trustProxy > 0 ? (config.trustProxy as unknown as boolean) : false,
    // The client's X-Request-Id when well formed, else one unique across instances and restarts (docs/observability.md).
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(request.headers['x-request-id']),
    logger: false,
    // No Nest middleware in this application: without @fastify/middie a request runs one hook fewer.
    skipMiddie: true,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Node checks these timeouts on this period (30 s by default: a 10 s headers timeout could take 40).
    http: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, { logger, bufferLogs: false });
  app.useWebSocketAdapter(new JsonRpcWsAdapter(app));
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(validationPipe());
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(MetricsService);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(request.url === '/docs' || request.url.startsWith('/docs/') || request.url.startsWith('/docs?') ? DOCS_HEADERS : SECURITY_HEADERS);
    void reply.header('x-request-id', request.id);
    done();
  });
  limitUnauthenticatedRoutes(app, config);
  countAndLogResponses(fastify, metrics);
  boundHttpDrain(fastify);
  serveDeclaredRoutes(app, fastify, app.get(AuthGuard), app.get(AuditTrail));
  // The API descriptions, generated from the code: /openapi.json, and the Swagger UI reference at /docs.
  const openapi = buildOpenApiDocument(app, config.serviceName);
  app.get(ApiDocumentsService).setOpenApi(openapi);
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
