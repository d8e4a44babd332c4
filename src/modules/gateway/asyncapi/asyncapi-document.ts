import type { Access } from '../../auth/access';
import { RFQ_STATES } from '../../rfq/domain/rfq-state';
import { MAX_BATCH, RPC_CODES } from '../json-rpc';
import { RPC_METHODS, type RpcDeclaration, type RpcMethodName } from '../rpc-method';
import { type JsonSchema, objectSchemaOf, ref } from '../schema/json-schema';
import { METHOD_SCHEMAS } from './method-schemas';
import { RPC_ERROR_NAMES, SCHEMAS } from './schemas';

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

/** Errors every rfq.* call may get, whatever the method (docs/spec/design.md section 4). */
const RFQ_COMMON_ERRORS = ['RFQ_NOT_ENABLED', 'RFQ_WRONG_ROLE', 'RFQ_RATE_LIMITED', 'RFQ_VALUE_OUT_OF_RANGE', 'RFQ_NOT_READY'];

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

function requestMessage(method: RpcMethodName, schema: RpcDeclaration): JsonSchema {
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

function resultMessage(method: RpcMethodName, schema: RpcDeclaration): JsonSchema {
  return {
    name: `${method} result`,
    title: `${method} result`,
    contentType: 'application/json',
    correlationId: { location: '$message.payload#/id' },
    payload: envelope({ id: ref('RpcId'), result: schema.result }, ['id', 'result']),
  };
}

function errorMessage(method: RpcMethodName, schema: RpcDeclaration): JsonSchema {
  const rfq = method.startsWith('rfq.');
  const codes: string[] = rfq ? [...RFQ_COMMON_ERRORS, ...schema.errors] : [...schema.errors, 'INTERNAL_ERROR'];
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
const SEQ: JsonSchema = { type: 'integer', minimum: 1, description: 'Increases by one per notification on each connection: a gap is a lost notification' };
const ACCOUNT_SEQ: JsonSchema = {
  type: 'integer',
  minimum: 1,
  description: 'Per account, +1 per event with no gap, kept 7 days: the `since` of rfq.subscribe / rfq.maker.subscribe after a reconnect (design.md 13)',
};
/** `account`: an event addressed to one account, numbered with account_seq (not the broadcasts created and closed). */
const eventData = (event: JsonSchema, rest: Record<string, JsonSchema>, account = false): JsonSchema => ({
  type: 'object',
  properties: { seq: SEQ, ...(account ? { account_seq: ACCOUNT_SEQ } : {}), event, ...rest },
  required: ['seq', ...(account ? ['account_seq'] : []), 'event', ...Object.keys(rest)],
  additionalProperties: false,
});

/** Notification messages of the `rfq` and `rfq_maker` channels (docs/spec/design.md section 5, Events). */
const NOTIFICATIONS: Record<'rfq' | 'rfq_maker' | 'session', Record<string, JsonSchema>> = {
  session: {
    session_lapsed: {
      name: 'session lapsed',
      title: 'The sign-in ended',
      summary:
        "At the token's exp or at a revoke of the account's sessions (design.md section 10): the connection is as before sign-in, its subscriptions dropped",
      contentType: 'application/json',
      payload: notification('session', eventData({ type: 'string', enum: ['expired', 'revoked'] }, {})),
    },
  },
  rfq: {
    rfq_event: {
      name: 'rfq event',
      title: 'RFQ event (taker)',
      summary: 'Every state move of one of the subscriber’s RFQs',
      contentType: 'application/json',
      payload: notification('rfq', eventData({ type: 'string', enum: RFQ_STATES.filter((state) => state !== 'pending') }, { rfq: ref('RfqView') }, true)),
    },
  },
  rfq_maker: {
    rfq_maker_created: {
      name: 'rfq_maker created',
      title: 'New pending RFQ',
      summary: 'To every subscribed quoter but the taker',
      contentType: 'application/json',
      payload: notification('rfq_maker', eventData({ const: 'created' }, { rfq: ref('OpenRfq') })),
    },
    rfq_maker_closed: {
      name: 'rfq_maker closed',
      title: 'RFQ left pending',
      summary: 'It left pending without the receiver’s quote (quoted by another maker, declined, expired)',
      contentType: 'application/json',
      payload: notification('rfq_maker', eventData({ const: 'closed' }, { rfq: ref('ClosedRfq') })),
    },
    rfq_maker_quote: {
      name: 'rfq_maker quote event',
      title: 'Event of the quote the receiver holds',
      summary: 'accepted, filled, failed or expired, to the maker holding the quote',
      contentType: 'application/json',
      payload: notification(
        'rfq_maker',
        eventData({ type: 'string', enum: ['accepted', 'filled', 'failed', 'expired'] }, { rfq: ref('MakerQuoteEvent') }, true),
      ),
    },
    rfq_maker_protection: {
      name: 'rfq_maker protection',
      title: 'Maker protection tripped',
      summary:
        'To the maker whose fills in its protection window exceeded a threshold (design.md section 15): new quotes are refused (RFQ_OPEN_LIMIT) until `until`, or until rfq.maker.reset_protection when null; live quotes stay firm',
      contentType: 'application/json',
      payload: notification('rfq_maker', eventData({ const: 'protection' }, { protection: ref('MakerProtectionTrip') }, true)),
    },
  },
};

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
  for (const method of RPC_METHODS) {
    const schema = METHOD_SCHEMAS[method];
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
  rfq: { title: 'rfq notifications', description: 'Subscription notifications with params.channel = "rfq": the taker’s RFQ events.' },
  rfq_maker: {
    title: 'rfq_maker notifications',
    description: 'Subscription notifications with params.channel = "rfq_maker": new and closed pending RFQs, and the events of the quote the maker holds.',
  },
  session: {
    title: 'session notifications',
    description: 'Notifications with params.channel = "session": the sign-in of the connection ended (expired or revoked).',
  },
};

/**
 * The AsyncAPI 3.0 description of the trading WebSocket, built from the interface's method list
 * (RPC_METHODS), the registry (which methods this build serves and their access) and the methods'
 * declarations (the ones their validators are compiled from). The server's point of view: it
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
    components: { schemas: SCHEMAS, messages: book.messages },
  };
}
