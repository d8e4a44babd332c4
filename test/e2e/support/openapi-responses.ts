import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Every HTTP response the e2e clients receive, checked against the OpenAPI document the app
 * serves (the app registers it at start, test/e2e/harness.ts): the status must be one the
 * operation declares, and a JSON body must be valid against that status's schema. Only routes the
 * document describes are checked (not the console's files, not /docs). Compiled once per test
 * process: the document is generated from the code, the same for every app of the process.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> } | { $ref: string }>;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, object>; responses?: Record<string, { content?: Record<string, { schema?: object }> }> };
}
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Operation;
}

const documents = new Map<string, OpenApi>();
let compiled: { routes: Route[]; ajv: Ajv2020; validators: Map<string, ValidateFunction | null> } | null = null;

/** Called by the harness for each app it starts: responses from `baseUrl` are checked against `document`. */
export function describeServer(baseUrl: string, document: object): void {
  documents.set(baseUrl, document as OpenApi);
}

function compile(document: OpenApi) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const format of ['int32', 'int64']) ajv.addFormat(format, true);
  ajv.addSchema({ components: document.components }, 'openapi');
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(item)) routes.push({ method: method.toUpperCase(), template, pattern, operation });
  }
  // A literal path wins over a template that also matches it.
  routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  return { routes, ajv, validators: new Map<string, ValidateFunction | null>() };
}

/** The schema refs of the document, pointed at the copy ajv holds. */
const rebased = (schema: object): object => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as object;

/**
 * Throws when the response is not what the document says. `body` is the parsed JSON body, or the
 * text when it is not JSON.
 */
export function checkResponse(baseUrl: string, method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const document = documents.get(baseUrl);
  if (!document) return;
  compiled ??= compile(document);
  const path = url.split('?')[0].split('#')[0];
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const route = compiled.routes.find((r) => r.method === verb && r.pattern.test(path));
  if (!route) return;
  const responses = route.operation.responses;
  const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  const where = `${verb} ${path} (${route.template})`;
  if (!declared) {
    throw new Error(
      `OpenAPI: ${where} answered ${status}, which the document does not declare (declared: ${Object.keys(responses).join(', ')}); body ${JSON.stringify(body)?.slice(0, 300)}`,
    );
  }
  const response = '$ref' in declared ? document.components.responses?.[String(declared.$ref).split('/').pop() as string] : declared;
  const media = (contentType ?? '').split(';')[0].trim();
  if (!response?.content || method.toUpperCase() === 'HEAD') return;
  if (!response.content[media]) {
    throw new Error(`OpenAPI: ${where} answered ${status} as ${media || 'no content type'}, the document says ${Object.keys(response.content).join(', ')}`);
  }
  if (media !== 'application/json') return;
  const key = `${verb} ${route.template} ${status}`;
  let validate = compiled.validators.get(key);
  if (validate === undefined) {
    const schema = response.content[media].schema;
    validate = schema ? compiled.ajv.compile(rebased(schema)) : null;
    compiled.validators.set(key, validate);
  }
  if (validate && !validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(
      `OpenAPI: the ${status} body of ${where} is not valid against the document: ${errors.join('; ')}; body ${JSON.stringify(body)?.slice(0, 500)}`,
    );
  }
}
