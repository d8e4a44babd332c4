/**
 * The JSON-RPC reference page, rendered from the AsyncAPI document itself (GET /asyncapi.json),
 * so the page and the machine-readable description cannot disagree. Pure: document in, HTML out.
 * No script: the page is static HTML with one stylesheet.
 */

/** A JSON value of the AsyncAPI document. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** An object of the document (a schema, a message, an operation), read loosely: the page shows what it holds. */
export type JsonNode = { readonly [key: string]: Json | undefined };
/** Follows a node's `$ref`; `{}` for anything that is not an object. */
export type Follow = (schema: unknown) => JsonNode;

const isNode = (value: unknown): value is JsonNode => typeof value === 'object' && value !== null && !Array.isArray(value);
const node = (value: unknown): JsonNode | undefined => (isNode(value) ? value : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const escapeHtml = (value: unknown) =>
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the document's texts are strings; anything else is shown as String() writes it
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Follows `#/a/b/c` references of the document. */
function resolver(doc: JsonNode): Follow {
  const follow = (schema: unknown, depth = 0): JsonNode => {
    const s = node(schema);
    if (!s || depth > 20) return {};
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
      const target = s.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
          doc,
        );
      return follow(target, depth + 1);
    }
    return s;
  };
  return (schema) => follow(schema);
}

const refName = (schema: JsonNode | undefined) => (typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined);

/** A short type text: the named schema, the constant, the enum, or the JSON type. */
function typeText(schema: JsonNode | undefined, follow: Follow): string {
  if (!schema) return 'any';
  const name = refName(schema);
  if (name) {
    const target = follow(schema);
    const base = typeText(target, follow);
    return base === 'object' || base === 'any' ? name : `${name} (${base})`;
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(schema[key]))
      return list(schema[key])
        .map((s) => typeText(node(s), follow))
        .join(' | ');
  if (schema.type === 'array') return `${typeText(node(schema.items), follow)}[]`;
  if (Array.isArray(schema.type)) return schema.type.filter((t) => typeof t === 'string').join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}

/** A value that fits the schema: its own example first, else one made from its type. */
export function exampleOf(schema: unknown, follow: Follow, depth = 0): unknown {
  const s = node(schema);
  if (!s || depth > 12) return null;
  if (s.$ref) return exampleOf(follow(s), follow, depth + 1);
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ('default' in s) return s.default;
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(s[key])) {
      const options = list(s[key]);
      const first = options.find((o) => follow(o).type !== 'null') ?? options[0];
      return exampleOf(first, follow, depth + 1);
    }
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((part) => exampleOf(part, follow, depth + 1))) as unknown;
  return exampleOfType(s, follow, depth);
}

/** exampleOf for a schema that names no example, constant, enum, default or alternatives: one made from its type. */
function exampleOfType(s: JsonNode, follow: Follow, depth: number): unknown {
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const properties = node(s.properties) ?? {};
      const required = Array.isArray(s.required) ? s.required.filter((k) => typeof k === 'string') : Object.keys(properties);
      return Object.fromEntries(required.filter((k) => k in properties).map((k) => [k, exampleOf(properties[k], follow, depth + 1)]));
    }
    case 'array':
      return [exampleOf(s.items, follow, depth + 1)];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'date-time') return '2026-12-27T08:00:00.000Z';
      if (s.pattern === '^[0-9a-f]{32}$') return '0193a1b2c3d4e5f60718293a4b5c6d7e';
      return 'string';
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The properties of an object schema as table rows (name, type, required, description). */
function fieldsTable(schema: unknown, follow: Follow): string {
  const target = follow(schema);
  const properties = node(target.properties) ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) return `<p class="type">${escapeHtml(typeText(node(schema), follow))}</p>`;
  const required = new Set(list(target.required));
  const rows = names
    .map((name) => {
      const field = node(properties[name]);
      const description = field?.description ?? follow(field).description ?? '';
      return `<tr><td><code>${escapeHtml(name)}</code></td><td><code>${escapeHtml(typeText(field, follow))}</code></td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${escapeHtml(description)}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const json = (value: unknown) => `<pre><code>${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
const anchor = (text: string) => text.replace(/[^A-Za-z0-9]+/g, '-');

/** One method: params, result, errors and an example exchange. */
function methodSection(op: JsonNode, follow: Follow): string {
  const method = text(op['x-jsonrpc-method']);
  const request = follow(list(op.messages)[0]);
  const [result, error] = list(node(op.reply)?.messages).map((ref) => follow(ref));
  const params = node(follow(request.payload).properties)?.params;
  const resultSchema = node(follow(result?.payload).properties)?.result;
  const requestExample = { jsonrpc: '2.0', id: 1, method, params: exampleOf(params, follow) ?? {} };
  const resultExample = { jsonrpc: '2.0', id: 1, result: exampleOf(resultSchema, follow) };
  const errorExample = exampleOf(error?.payload, follow);
  const codes = list(error?.['x-error-codes']);
  return `<section class="method" id="${anchor(method)}" aria-labelledby="${anchor(method)}-h">
<h3 id="${anchor(method)}-h"><code>${escapeHtml(method)}</code></h3>
<p class="summary">${escapeHtml(op.summary)}</p>
${text(op.description)
  .split('\n\n')
  .map((p) => `<p>${escapeHtml(p)}</p>`)
  .join('')}
<h4>Params</h4>${fieldsTable(params, follow)}
<h4>Result</h4>${fieldsTable(resultSchema, follow)}
<h4>Errors</h4><p>${escapeHtml(error?.summary ?? '')}</p>
<ul class="codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ul>
<h4>Example exchange</h4>
<div class="exchange"><div><p class="label">Request</p>${json(requestExample)}</div><div><p class="label">Result</p>${json(resultExample)}</div><div><p class="label">Error</p>${json(errorExample)}</div></div>
</section>`;
}

/** One channel: each of its events with its data fields and an example. */
function channelSection(key: string, op: JsonNode, follow: Follow): string {
  const events = list(op.messages).map((ref) => {
    const m = follow(ref);
    const data = follow(node(follow(node(follow(m.payload).properties)?.params).properties)?.data);
    return `<article class="event"><h4>${escapeHtml(m.title ?? m.name)}</h4><p>${escapeHtml(m.summary ?? '')}</p>
<h5>data</h5>${fieldsTable(data, follow)}
<h5>Example</h5>${json(exampleOf(m.payload, follow))}</article>`;
  });
  return `<section class="channel" id="channel-${anchor(key)}" aria-labelledby="channel-${anchor(key)}-h"><h3 id="channel-${anchor(key)}-h">${escapeHtml(op.title ?? key)}</h3><p>${escapeHtml(op.summary ?? '')}</p>${events.join('')}</section>`;
}

/** The document's description: paragraphs, and runs of "- " lines as lists. */
function descriptionHtml(description: string): string {
  const lines = description.split('\n').filter((line) => line.trim());
  return lines
    .map((line, i) => {
      const item = line.startsWith('- ');
      const open = item && !lines[i - 1]?.startsWith('- ') ? '<ul>' : '';
      const close = item && !lines[i + 1]?.startsWith('- ') ? '</ul>' : '';
      return item ? `${open}<li>${escapeHtml(line.slice(2))}</li>${close}` : `<p>${escapeHtml(line)}</p>`;
    })
    .join('');
}

/** The whole page, from the AsyncAPI document (a JSON object). */
export function renderJsonRpcReference(document: object): string {
  const doc = node(document) ?? {};
  const follow = resolver(doc);
  const info = node(doc.info);
  const operations = Object.entries(node(doc.operations) ?? {}).map(([key, op]) => [key, node(op) ?? {}] as const);
  const methods = operations.filter(([, op]) => op['x-jsonrpc-method']);
  const channels = operations.filter(([, op]) => !op['x-jsonrpc-method']);
  const methodSections = methods.map(([, op]) => methodSection(op, follow));
  const channelSections = channels.map(([key, op]) => channelSection(key, op, follow));
  const toc = methods
    .map(([, op]) => `<li><a href="#${anchor(text(op['x-jsonrpc-method']))}"><code>${escapeHtml(op['x-jsonrpc-method'])}</code></a></li>`)
    .join('');
  const channelToc = channels.map(([key, op]) => `<li><a href="#channel-${anchor(key)}">${escapeHtml(op.title ?? key)}</a></li>`).join('');
  const description = descriptionHtml(text(info?.description));

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info?.title)}: JSON-RPC reference</title>
<link rel="stylesheet" href="/docs/json-rpc.css"></head>
<body><header><h1>${escapeHtml(info?.title)} <span class="version">v${escapeHtml(info?.version)}</span></h1>
<p>JSON-RPC 2.0 methods and notifications, generated from <a href="/asyncapi.json">/asyncapi.json</a> (AsyncAPI ${escapeHtml(doc.asyncapi)}). HTTP routes: <a href="/docs">/docs</a>.</p></header>
<nav aria-label="Contents"><h2>Methods</h2><ul>${toc}</ul><h2>Channels</h2><ul>${channelToc}</ul></nav>
<main><section class="intro" aria-label="Overview">${description}</section>
<h2>Methods</h2>${methodSections.join('\n')}
<h2>Channels and events</h2>${channelSections.join('\n')}</main></body></html>`;
}

export const JSON_RPC_REFERENCE_CSS = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fff;display:grid;grid-template-columns:260px 1fr}
header{grid-column:1/3;padding:16px 24px;background:#0f2a43;color:#fff}header a{color:#cde4ff}
h1{margin:0;font-size:22px}.version{font-size:14px;opacity:.8}
nav{padding:16px;border-right:1px solid #d0d7de;position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto}
nav h2{font-size:14px;text-transform:uppercase;color:#57606a}nav ul{list-style:none;padding:0;margin:0 0 16px}nav a{color:#0550ae;text-decoration:none}
main{padding:16px 32px;max-width:1100px}
section.method,section.channel{border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;margin:16px 0}
h3{margin:0 0 4px;font-size:18px}.summary{font-weight:600}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px;margin:0}
.exchange{display:grid;grid-template-columns:repeat(3,1fr);gap:8px}.label{margin:0;font-weight:600;font-size:13px}
.codes{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0}.codes li{background:#fff1e5;border-radius:4px;padding:0 6px}
article.event{border-top:1px solid #eaeef2;padding-top:8px}
`;
