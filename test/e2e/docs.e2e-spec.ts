import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Diagnostic, Parser } from '@asyncapi/parser';
import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { getMetadataStorage } from 'class-validator';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS, type Access } from '../../src/common/access/access';
import { METHOD_NAMES as RPC_METHODS, METHODS as METHOD_SCHEMAS, ROUTES, ROUTE_NAMES, routeDeclaration } from '@legwork/protocol';
import { RpcRegistry } from '../../src/modules/gateway/rpc-registry';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';

const CHROMIUM = '/usr/bin/chromium';

/** A DTO class. */
type Dto = abstract new (...args: never[]) => unknown;

/** Every route of every controller, found the way Nest finds them (not through the document under test). */
function appRoutes(app: TestApp): Array<{ method: string; path: string; access: Access | undefined; name: string; query?: Dto; body?: Dto }> {
  const discovery = app.app.get(DiscoveryService);
  const scanner = app.app.get(MetadataScanner);
  const reflector = app.app.get(Reflector);
  const routes = [];
  for (const wrapper of discovery.getControllers()) {
    const prototype = Object.getPrototypeOf(wrapper.instance);
    const base: string = Reflect.getMetadata(PATH_METADATA, wrapper.metatype!) ?? '';
    for (const key of scanner.getAllMethodNames(prototype)) {
      const method = Reflect.getMetadata(METHOD_METADATA, prototype[key]) as RequestMethod | undefined;
      if (method === undefined) continue;
      const sub: string = Reflect.getMetadata(PATH_METADATA, prototype[key]) ?? '';
      const path = ('/' + [base, sub].join('/').split('/').filter(Boolean).join('/')).replace(/:(\w+)/g, '{$1}');
      // The DTO classes of its whole-query and whole-body arguments (`@Query() q: Dto`, `@Body() b: Dto`), which the ValidationPipe checks.
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, wrapper.metatype!, key) ?? {}) as Record<string, { index: number; data?: unknown }>;
      const types = (Reflect.getMetadata('design:paramtypes', prototype, key) ?? []) as Dto[];
      const dto = (kind: RouteParamtypes) => Object.entries(args).find(([k, a]) => Number(k.split(':')[0]) === Number(kind) && a.data === undefined)?.[1].index;
      const [query, body] = [dto(RouteParamtypes.QUERY), dto(RouteParamtypes.BODY)].map((index) => (index === undefined ? undefined : types[index]));
      routes.push({
        method: RequestMethod[method].toLowerCase(),
        path,
        access: reflector.getAllAndOverride<Access>(ACCESS, [prototype[key], wrapper.metatype!]),
        name: `${wrapper.name}.${key}`,
        query,
        body,
      });
    }
  }
  // The routes declared in @legwork/protocol, served straight on Fastify (common/http/declared-routes.ts).
  for (const name of ROUTE_NAMES) {
    const { method, path, access } = ROUTES[name];
    routes.push({ method: method.toLowerCase(), path, access, name, query: undefined, body: undefined });
  }
  return routes;
}

/** DiagnosticSeverity.Error, as the parser's own copy of @stoplight/types declares the diagnostics' severity. */
const ERROR: Diagnostic['severity'] = 0;

function chromium(args: string[], timeoutMs = 60_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const failure: Error & { stderr: string } = Object.assign(error, { stderr });
        reject(failure);
      } else resolve({ stdout, stderr });
    });
  });
}

describe('API descriptions: /openapi.json, /asyncapi.json and the /docs reference', () => {
  let env: Environment;
  let app: TestApp;
  let http: Http;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    http = new Http(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  describe('GET /openapi.json', () => {
    let document: any;
    beforeAll(async () => {
      const response = await http.get('/openapi.json');
      expect(response.status).toBe(200);
      document = response.body;
    });

    it('is a valid OpenAPI 3.1 document of API version 0.1.0 (interface.md section 9)', async () => {
      expect(document.openapi).toBe('3.1.0');
      expect(document.info.version).toBe('0.1.0');
      // The validator dereferences in place: give it a copy.
      await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
    });

    it('declares the session JWT, the admin token and the metrics token as bearer schemes', () => {
      expect(document.components.securitySchemes).toEqual({
        session: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
        admin_token: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        metrics_token: { type: 'http', scheme: 'bearer', description: expect.stringContaining('METRICS_TOKEN') },
      });
      // /metrics: open, or the metrics token when METRICS_TOKEN is set; no header parameter.
      const metrics = document.paths['/metrics'].get;
      expect(metrics.security).toEqual(expect.arrayContaining([{}, { metrics_token: [] }]));
      expect(metrics.parameters).toBeUndefined();
    });

    it('describes every HTTP route of the application, with security following its declared access', () => {
      const routes = appRoutes(app);
      expect(routes.length).toBeGreaterThan(15);
      const missing = routes.filter((r) => !document.paths[r.path]?.[r.method]).map((r) => `${r.method.toUpperCase()} ${r.path} (${r.name})`);
      expect(missing).toEqual([]);
      for (const route of routes) {
        const operation = document.paths[route.path][route.method];
        expect(Object.keys(operation.responses).some((status) => status.startsWith('2'))).toBe(true);
        // Public: `security: []` (no credential), or `{}` among the requirements when a credential is optional (/metrics).
        if (route.access?.kind === 'public')
          expect(operation.security.length === 0 || operation.security.some((r: object) => Object.keys(r).length === 0)).toBe(true);
        else expect(operation.security?.length).toBeGreaterThan(0);
        for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
          expect(operation.parameters).toContainEqual(expect.objectContaining({ in: 'path', name: name.slice(1, -1), required: true }));
        }
      }
      // Nothing documented that the application does not serve.
      const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method} ${path}`));
      expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    });

    it('states every query parameter and body field the ValidationPipe takes, and that a body takes no other field', () => {
      const fields = (dto: Dto) =>
        [
          ...new Set(
            getMetadataStorage()
              .getTargetValidationMetadatas(dto, '', true, false)
              .map((m) => m.propertyName),
          ),
        ].sort();
      // Declared in the DTO only so that the service refuses it with its own message (interface.md 4.1: `after` is a 400 there).
      const refusedByService: Record<string, string[]> = { 'get /query/rfq-positions': ['after'] };
      let checked = 0;
      for (const name of ROUTE_NAMES) {
        const { method, path, query } = ROUTES[name];
        const operation = document.paths[path][method.toLowerCase()];
        const documented = (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        const taken = Object.keys(query).filter((param) => !refusedByService[`${method.toLowerCase()} ${path}`]?.includes(param));
        expect({ route: name, query: documented.sort() }).toEqual({ route: name, query: taken.sort() });
        if (routeDeclaration(name).otherQuery !== 'ignored' || taken.length > 0) expect(operation.responses['400']).toBeDefined();
        const body = routeDeclaration(name).body;
        if (body) expect({ route: name, body: operation.requestBody.content['application/json'].schema }).toEqual({ route: name, body });
        checked += 1;
      }
      for (const route of appRoutes(app)) {
        const operation = document.paths[route.path][route.method];
        if (route.query) {
          const documented = (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
          const taken = fields(route.query).filter((name) => !refusedByService[`${route.method} ${route.path}`]?.includes(name));
          expect({ route: route.name, query: documented.sort() }).toEqual({ route: route.name, query: taken });
          expect(operation.responses['400']).toBeDefined();
          checked += 1;
        }
        if (route.body) {
          expect(operation.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${route.body.name}`);
          const schema = document.components.schemas[route.body.name];
          expect({ body: route.body.name, fields: Object.keys(schema.properties ?? {}).sort(), additionalProperties: schema.additionalProperties }).toEqual({
            body: route.body.name,
            fields: fields(route.body),
            additionalProperties: false,
          });
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThan(15);
    });

    it('describes bodies, queries and results from the DTOs', () => {
      const nonce = document.paths['/v1/auth/nonce'].post;
      const body = nonce.requestBody.content['application/json'].schema;
      expect(body).toMatchObject({ required: ['wallet'], additionalProperties: false });
      expect(nonce.responses['200'].content['application/json'].schema).toEqual(ROUTES['auth.nonce'].response);
      expect(nonce.responses['429']).toBeDefined();
      const list = document.paths['/v1/instruments'].get;
      expect(list.parameters.map((p: any) => p.name).sort()).toEqual(['asset', 'expiry', 'include_settled']);
      const instrument = list.responses['200'].content['application/json'].schema.properties.instruments.items;
      expect(instrument.properties.settlement_price.type).toEqual(['string', 'null']);
      expect(document.components.schemas.ErrorResponse.required).toEqual(['error']);
    });
  });

  describe('GET /asyncapi.json', () => {
    let document: any;
    beforeAll(async () => {
      const response = await http.get('/asyncapi.json');
      expect(response.status).toBe(200);
      document = response.body;
    });

    it('is a valid AsyncAPI 3.0 document of API version 0.1.0', async () => {
      expect(document.asyncapi).toBe('3.0.0');
      expect(document.info.version).toBe('0.1.0');
      const { document: parsed, diagnostics } = await new Parser().parse(JSON.stringify(document));
      expect(diagnostics.filter((d) => d.severity === ERROR).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
      expect(parsed).toBeDefined();
    });

    it('has a schema entry for every registered method, and every method of the interface', () => {
      const registered = app.app
        .get(RpcRegistry)
        .all()
        .map((m) => m.name);
      expect(registered.length).toBeGreaterThan(4);
      expect(registered.filter((name) => !(name in METHOD_SCHEMAS))).toEqual([]);
      const described = Object.values(document.operations)
        .map((o: any) => o['x-jsonrpc-method'])
        .filter(Boolean);
      expect([...described].sort()).toEqual([...RPC_METHODS].sort());
      for (const name of registered) {
        const operation: any = Object.values(document.operations).find((o: any) => o['x-jsonrpc-method'] === name);
        expect(operation['x-access']).toEqual(app.app.get(RpcRegistry).get(name)!.access);
      }
    });

    it('describes the 1200 RFQ error data and the non-RFQ codes', () => {
      const schemas = document.components.schemas;
      expect(schemas.RfqErrorReply.properties.error.properties.code).toEqual({ const: 1200 });
      // design.md section 19 adds `reason` to every RFQ error's data.
      expect(schemas.RfqErrorData.required).toEqual(['error', 'reason', 'message', 'operation_id', 'retryable']);
      expect(schemas.RfqErrorReason.enum).toEqual(expect.arrayContaining(['quoted_by_another', 'kill_switch', 'quote_expired']));
      expect(schemas.RfqErrorData.properties.error.enum).toContain('RFQ_TAKER_UNFUNDED');
      expect(schemas.RpcErrorReply.properties.error.properties.code.enum).toEqual([-32700, -32600, -32601, -32602, -32603, 1000, 1001, 1002, 1004, 1005]);
    });

    it('describes the notification channels rfq, rfq_maker and session', () => {
      expect(Object.keys(document.channels).sort()).toEqual(['client', 'rfq', 'rfq_maker', 'session']);
      expect(document.operations.session_events).toMatchObject({ action: 'send', channel: { $ref: '#/channels/session' } });
      expect(document.operations.rfq_events).toMatchObject({ action: 'send', channel: { $ref: '#/channels/rfq' } });
      expect(document.operations.rfq_maker_events).toMatchObject({ action: 'send', channel: { $ref: '#/channels/rfq_maker' } });
    });
  });

  describe('GET /docs', () => {
    it('serves the interactive reference page', async () => {
      const response = await fetch(`${app.url}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('swagger-ui');
    });

    const withChromium = existsSync(CHROMIUM) ? it : it.skip;
    if (!existsSync(CHROMIUM)) {
      console.warn(`SKIPPED: the /docs screenshot test needs Debian chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
    }

    withChromium(
      'renders the route list in headless Chromium (DOM and a screenshot)',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'legwork-docs-'));
        try {
          const flags = [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--disable-dev-shm-usage',
            '--hide-scrollbars',
            '--window-size=1280,2400',
            // Lets the page's scripts run (Swagger UI renders in the browser) before the capture.
            '--virtual-time-budget=15000',
          ];
          const url = `${app.url}/docs`;
          const { stdout: dom } = await chromium([...flags, `--user-data-dir=${join(dir, 'profile-dom')}`, '--dump-dom', url]);
          const text = dom.replace(/<wbr>/g, '').replace(/\u200b/g, '');
          for (const path of ['/v1/auth/nonce', '/v1/admin/create-instruments', '/query/balances', '/health/ready', '/metrics']) expect(text).toContain(path);
          expect(text).toContain('opblock-summary-path');

          const png = join(dir, 'docs.png');
          await chromium([...flags, `--user-data-dir=${join(dir, 'profile-shot')}`, `--screenshot=${png}`, url]);
          const bytes = readFileSync(png);
          expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
          expect(bytes.readUInt32BE(16)).toBe(1280); // IHDR width
          expect(bytes.readUInt32BE(20)).toBe(2400); // IHDR height
          expect(bytes.length).toBeGreaterThan(50_000); // a rendered page, not a blank one
          if (process.env.DOCS_SCREENSHOT) copyFileSync(png, process.env.DOCS_SCREENSHOT);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      120_000,
    );
  });
});
