import {
  EVENTS,
  type JsonSchema,
  METHOD_NAMES,
  type MethodDeclaration,
  type MethodName,
  PUBLIC_COMMON_ERRORS,
  RFQ_COMMON_ERRORS,
  RPC_CODES,
  RPC_ERROR_NAMES,
  VIEW_SCHEMAS,
  methodDeclaration,
  objectSchemaOf,
  ref,
} from '@legwork/protocol';
import type { Access } from '../../../common/access/access';
import { MAX_BATCH } from '../json-rpc';

/** A method as the registry holds it: its name and declared access. */
interface ServedMethod {
  name: string;
  access: Access;
}

export interface AsyncApiOptions {
  /** The API description's own version (docs/spec/interface.md section 9: 0.1.0). */
  version: string;
  /** The methods this build registers (RpcRegistry.all()): their access goes into the document. */
  served: ServedMethod[];
}

/** A component key for a method name (`public/get_nonce` → `public_get_nonce`, `rfq.maker.poll` → `rfq_maker_poll`). */
export function methodKey(method: string): string {
  return method.replace(/[^A-Za-z0-9]/g, '_');
}

function describeAccess(access: Access | undefined): string {
  if (!access) return 'Not served by this build: the call answers -32601 METHOD_NOT_FOUND.';
  switch (access.kind) {
    case 'public':
      return 'No sign-in needed.';
    case 'account':
      return `Needs a signed-in wallet that has an account${access.role ? ` with the ${access.role} role` : ''}.`;
    case 'reader':
      return 'Needs a signed-in account or an admin reader.';
    case 'admin':
      return `Needs an admin session (scope admin:${access.command}).`;
  }
}

const envelope = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: 'object',
  properties: { jsonrpc: { const: '2.0' }, ...properties },
  required: ['jsonrpc', ...required],
  additionalProperties: false,
});

function requestMessage(method: MethodName, schema: MethodDeclaration): JsonSchema {
  const params = objectSchemaOf(schema.params);
  const paramsRequired = (params.required as string[]).length > 0;
  return {
    name: method,
    title: `${method} request`,
    summary: schema.summary,
    contentType: 'application/json',
    correlationId: { location: '$message.payload#/id' },
    payload: envelope({ id: ref('RpcId'), method: { const: method }, params }, paramsRequired ? ['id', 'method', 'params'] : ['id', 'method']),
  };
}

function resultMessage(method: MethodName, schema: MethodDeclaration): JsonSchema {
  return {
    name: `${method} result`,
    title: `${method} result`,
    contentType: 'application/json',
    correlationId: { location: '$message.payload#/id' },
    payload: envelope({ id: ref('RpcId'), result: schema.result as JsonSchema }, ['id', 'result']),
  };
}

function errorMessage(method: MethodName, schema: MethodDeclaration): JsonSchema {
  const rfq = schema.dialect === 'rfq';
  const codes: string[] = rfq ? [...RFQ_COMMON_ERRORS, ...schema.errors] : [...schema.errors, ...PUBLIC_COMMON_ERRORS];
  const listed = rfq ? codes.join(', ') : codes.map((name) => `${RPC_CODES[name as keyof typeof RPC_CODES]} ${name}`).join(', ');
  return {
    name: `${method} error`,
    title: `${method} error`,
    summary: rfq ? `Code 1200; error.data.error one of ${listed}` : `Codes ${listed}`,
    contentType: 'application/json',
    correlationId: { location: '$message.payload#/id' },
    payload: ref(rfq ? 'RfqErrorReply' : 'RpcErrorReply'),
    'x-error-codes': codes,
  };
}

const notification = (channel: string, data: JsonSchema): JsonSchema =>
  envelope(
    {
      method: { const: 'subscription' },
      params: { type: 'object', properties: { channel: { const: channel }, data }, required: ['channel', 'data'], additionalProperties: false },
    },
    ['method', 'params'],
  );
interface EventDeclaration {
  name: string;
  title: string;
  summary: string;
  data: object;
}

/** Notification messages of the channels (docs/spec/design.md section 5, Events): the contract's events in their envelope. */
const NOTIFICATIONS = Object.fromEntries(
  Object.entries(EVENTS).map(([channel, events]) => [
    channel,
    Object.fromEntries(
      Object.entries(events as Record<string, EventDeclaration>).map(([key, { name, title, summary, data }]) => [
        key,
        { name, title, summary, contentType: 'application/json', payload: notification(channel, data as JsonSchema) },
      ]),
    ),
  ]),
) as unknown as Record<keyof typeof EVENTS, Record<string, JsonSchema>>;

const DESCRIPTION = `JSON-RPC 2.0 over WebSocket at /client (same host and port as the HTTP API; wss behind TLS).

- Text frames, one JSON value each, at most 64 KiB (close 1009 above). A JSON array is a batch of 1 to ${MAX_BATCH} requests, answered in order in one array.
- \`id\` is required (string, integer or null) and echoed; absent \`params\` read as \`{}\`.
- The server pings every 20 s and closes a connection that missed two pongs; a connection with more than 1 MiB unsent is closed (slow consumer).
- Sign in on the connection with public/get_nonce then public/auth (or public/session_resume); rfq.* methods act for that account.
- Every rfq.* failure is code ${RPC_CODES.RFQ_ERROR} with the typed RFQ error in error.data (RfqErrorData). Other failures: ${RPC_ERROR_NAMES.map((n) => `${RPC_CODES[n]} ${n}`).join(', ')}, with error.data = { error, message }.
- Limits: public/* reads other than sign-in share a token bucket per client IP with the unauthenticated HTTP routes; rfq.* calls a bucket per account. A refusal (1005 RATE_LIMITED, RFQ_RATE_LIMITED) carries retry_after_ms in error.data.
- Notifications: { jsonrpc: "2.0", method: "subscription", params: { channel, data: { seq, event, rfq } } } on the channels rfq (rfq.subscribe) and rfq_maker (rfq.maker.subscribe, quoter role).`;

type Messages = Record<string, JsonSchema>;

/** The document's messages, and the ones of each channel (references to them). */
class MessageBook {
  readonly messages: Messages = {};
  readonly channels: Record<'client' | 'rfq' | 'rfq_maker' | 'session', Messages> = { client: {}, rfq: {}, rfq_maker: {}, session: {} };

  add(channel: keyof MessageBook['channels'], key: string, message: JsonSchema): void {
    this.messages[key] = message;
    this.channels[channel][key] = { $ref: `#/components/messages/${key}` };
  }
}

const channelMessage = (channel: string, key: string) => ({ $ref: `#/channels/${channel}/messages/${key}` });

/** One `receive` operation per method of the interface: request, result and error messages, with the served access. */
function methodOperations(book: MessageBook, served: Map<string, Access>): Record<string, JsonSchema> {
  const operations: Record<string, JsonSchema> = {};
  book.add('client', 'rpc_error', { name: 'error', title: 'Non-RFQ failure', contentType: 'application/json', payload: ref('RpcErrorReply') });
  for (const method of METHOD_NAMES) {
    const schema = methodDeclaration(method);
    const key = methodKey(method);
    book.add('client', `${key}.request`, requestMessage(method, schema));
    book.add('client', `${key}.result`, resultMessage(method, schema));
    book.add('client', `${key}.error`, errorMessage(method, schema));
    const access = served.get(method);
    operations[key] = {
      action: 'receive',
      title: method,
      summary: schema.summary,
      description: [schema.description, describeAccess(access)].filter(Boolean).join('\n\n'),
      channel: { $ref: '#/channels/client' },
      messages: [channelMessage('client', `${key}.request`)],
      reply: {
        channel: { $ref: '#/channels/client' },
        messages: [channelMessage('client', `${key}.result`), channelMessage('client', `${key}.error`), channelMessage('client', 'rpc_error')],
      },
      'x-jsonrpc-method': method,
      'x-access': access ?? null,
    };
  }
  return operations;
}

const CHANNEL_SUMMARIES: Record<keyof typeof NOTIFICATIONS, string> = {
  rfq: 'Taker RFQ events, after rfq.subscribe',
  rfq_maker: 'Quoter RFQ events, after rfq.maker.subscribe (quoter role)',
  session: 'The end of a sign-in, to every signed-in connection (no subscription)',
};

/** One `send` operation per notification channel. */
function notificationOperations(book: MessageBook): Record<string, JsonSchema> {
  const operations: Record<string, JsonSchema> = {};
  for (const channel of ['rfq', 'rfq_maker', 'session'] as const) {
    for (const [key, message] of Object.entries(NOTIFICATIONS[channel])) book.add(channel, key, message);
    operations[`${channel}_events`] = {
      action: 'send',
      title: `${channel} notifications`,
      summary: CHANNEL_SUMMARIES[channel],
      channel: { $ref: `#/channels/${channel}` },
      messages: Object.keys(NOTIFICATIONS[channel]).map((key) => channelMessage(channel, key)),
    };
  }
  return operations;
}

const SERVERS = {
  local: { host: 'localhost:3000', protocol: 'ws', pathname: '/client', description: 'A local instance (PORT 3000)' },
  deployment: {
    host: '{host}',
    protocol: 'wss',
    pathname: '/client',
    description: 'A deployment behind TLS: the host of the HTTP API',
    variables: { host: { default: 'localhost', description: 'Host (and port) of the deployment' } },
  },
};

const CHANNELS: Record<keyof MessageBook['channels'], { title: string; description: string }> = {
  client: { title: 'JSON-RPC requests and replies', description: 'Requests from the client and the replies to them (correlated by id).' },
  rfq: {
    title: 'rfq notifications',
    description:
      'Subscription notifications with params.channel = "rfq": the taker’s RFQ events, and `quotes` whenever the live quotes of its competitive RFQ change (design.md 18).',
  },
  rfq_maker: {
    title: 'rfq_maker notifications',
    description:
      'Subscription notifications with params.channel = "rfq_maker": new RFQs (a competitive one to its panel only) and `closed` when one leaves the open book without the maker’s live quote, the events of the quote the maker holds, and the ends of its competitive quotes without a fill (`traded_away`, `expired`: no price, no winner, no taker; design.md 18).',
  },
  session: {
    title: 'session notifications',
    description: 'Notifications with params.channel = "session": the sign-in of the connection ended (expired or revoked).',
  },
};

/**
 * The AsyncAPI 3.0 description of the trading WebSocket, built from the contract (`METHODS`,
 * `VIEW_SCHEMAS` and `EVENTS` of `@legwork/protocol`: the declarations the validators are compiled
 * from) and the registry (which methods this build serves). The server's point of view: it
 * receives requests (and replies) and sends notifications.
 */
export function buildAsyncApiDocument(options: AsyncApiOptions): Record<string, unknown> {
  const book = new MessageBook();
  const operations = { ...methodOperations(book, new Map(options.served.map((m) => [m.name, m.access]))), ...notificationOperations(book) };
  const channels = Object.fromEntries(
    (Object.keys(CHANNELS) as Array<keyof typeof CHANNELS>).map((name) => [name, { address: '/client', ...CHANNELS[name], messages: book.channels[name] }]),
  );
  return {
    asyncapi: '3.0.0',
    info: { title: 'Legwork trading WebSocket', version: options.version, description: DESCRIPTION },
    defaultContentType: 'application/json',
    servers: SERVERS,
    channels,
    operations,
    components: { schemas: VIEW_SCHEMAS, messages: book.messages },
  };
}
