import { JsonText } from '../../common/rpc/json-text';
/**
 * JSON-RPC 2.0 envelopes of the trading WebSocket (docs/spec/interface.md 4.2, docs/spec/design.md section 4): pure
 * parsing of requests and building of replies. No Nest, no ws.
 */

import { RPC_CODES, type RpcErrorName } from '@legwork/protocol';
import { RawIntegerId, restoreLargeIds } from './raw-ids';

/** A RawIntegerId is an integer id beyond 2^53, echoed as the text it was sent as (raw-ids.ts). */
export type RpcId = string | number | RawIntegerId | null;

export interface RpcRequest {
  id: RpcId;
  method: string;
  /** Absent params read as {}; an array is the method's to refuse (-32602); any other non-object is an Invalid Request. */
  params: unknown;
}

export const MAX_BATCH = 20;

/** `params` nested deeper than this is invalid params (docs/spec/design.md section 10); params itself is level 1. */
export { MAX_JSON_DEPTH as MAX_PARAMS_DEPTH } from '../../common/json-depth';

export { deeperThan } from '../../common/json-depth';

/** The failure codes (docs/spec/design.md section 4) are the contract's. */
export { RPC_CODES, type RpcErrorName };

interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcReply {
  jsonrpc: '2.0';
  id: RpcId;
  result?: unknown;
  error?: RpcErrorBody;
}

/** The text of a frame (a reply, a batch of replies, a notification); a JsonText result goes in as it is. */
export function frameText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(frameText).join(',')}]`;
  const reply = value as RpcReply | null;
  if (reply === null || typeof reply !== 'object') return JSON.stringify(value);
  const rawId = reply.id instanceof RawIntegerId;
  if (!rawId && !(reply.result instanceof JsonText)) return JSON.stringify(value);
  const head = `{"jsonrpc":"2.0","id":${reply.id instanceof RawIntegerId ? reply.id.text : JSON.stringify(reply.id)}`;
  if (reply.result instanceof JsonText) return `${head},"result":${reply.result.json}}`;
  const rest = 'error' in reply ? { error: reply.error } : { result: reply.result };
  return `${head},${JSON.stringify(rest).slice(1)}`;
}

export function success(id: RpcId, result: unknown): RpcReply {
  return { jsonrpc: '2.0', id, result };
}

/** A non-RFQ failure; a RATE_LIMITED one says when to try again (`retry_after_ms`, docs/spec/design.md section 16). */
export function failure(id: RpcId, name: RpcErrorName, message: string, retryAfterMs?: number): RpcReply {
  const data = retryAfterMs === undefined ? { error: name, message } : { error: name, message, retry_after_ms: retryAfterMs };
  return { jsonrpc: '2.0', id, error: { code: RPC_CODES[name], message, data } };
}

function isRpcId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || value instanceof RawIntegerId || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** The id to echo in an Invalid Request reply: the request's when readable, else null. */
function readableId(value: unknown): RpcId {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'id' in value) {
    const id = value.id;
    if (isRpcId(id)) return id;
  }
  return null;
}

/** One request object, or the Invalid Request reply it deserves. */
export function parseRequest(value: unknown): RpcRequest | RpcReply {
  const id = readableId(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return failure(null, 'INVALID_REQUEST', 'a request must be a JSON object');
  const request = value as Record<string, unknown>;
  if (request.jsonrpc !== '2.0') return failure(id, 'INVALID_REQUEST', 'jsonrpc must be "2.0"');
  if (!('id' in request)) return failure(null, 'INVALID_REQUEST', 'id is required');
  if (!isRpcId(request.id)) return failure(null, 'INVALID_REQUEST', 'id must be a string, an integer or null');
  if (typeof request.method !== 'string') return failure(id, 'INVALID_REQUEST', 'method must be a string');
  if (request.method.length === 0) return failure(id, 'INVALID_REQUEST', 'method must not be empty');
  if (!('params' in request)) return { id: request.id, method: request.method, params: {} };
  // JSON-RPC 2.0 section 4.2: params, when present, is a structured value (an object or an array).
  if (typeof request.params !== 'object' || request.params === null) return failure(id, 'INVALID_REQUEST', 'params must be an object or an array');
  return { id: request.id, method: request.method, params: request.params };
}

export type Frame = { kind: 'single'; request: unknown } | { kind: 'batch'; requests: unknown[] } | { kind: 'reply'; reply: RpcReply };

/** A text frame: one request, a batch (1 to 20), or the reply that refuses the frame whole. */
export function parseFrame(text: string): Frame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'reply', reply: failure(null, 'PARSE_ERROR', 'the frame is not valid JSON') };
  }
  restoreLargeIds(text, value);
  if (!Array.isArray(value)) return { kind: 'single', request: value };
  if (value.length === 0) return { kind: 'reply', reply: failure(null, 'INVALID_REQUEST', 'an empty batch is not a request') };
  if (value.length > MAX_BATCH) return { kind: 'reply', reply: failure(null, 'INVALID_REQUEST', `a batch holds at most ${MAX_BATCH} requests`) };
  return { kind: 'batch', requests: value };
}

export function isReply(value: RpcRequest | RpcReply): value is RpcReply {
  return 'jsonrpc' in value;
}
