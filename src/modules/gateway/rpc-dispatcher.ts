import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError, type AppErrorCode, RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { PublicRateLimit } from '../../common/rate-limit/public-rate-limit';
import { AccountAccessService } from '../accounts/account-access.service';
import { checkAccess, type Lapse, type Principal } from '../../common/access/access';
import { MetricsService } from '../health/metrics.service';
import { type RpcErrorName, type RpcReply, type RpcRequest, MAX_PARAMS_DEPTH, RPC_CODES, deeperThan, failure, success } from './json-rpc';
import type { RpcSession } from '../../common/rpc/rpc-method';
import { type RegisteredMethod, RpcRegistry } from './rpc-registry';
import { RfqAdmission } from './rfq-admission';

/** The connection as the dispatcher needs it. */
export interface CallerState extends RpcSession {
  /** The principal of the token the connection signed in with (its roles are the token's). */
  principal: Principal | null;
  clientIp: string;
  /** The connection's id on log lines (docs/observability.md). */
  readonly connectionId: string;
  /** The sign-in ended (token expired or revoked): the connection is as before sign-in. */
  lapse(reason: Lapse): void;
}

const APP_TO_RPC: Partial<Record<AppErrorCode, RpcErrorName>> = {
  INVALID_PARAMS: 'INVALID_PARAMS',
  AUTH_REQUIRED: 'AUTH_REQUIRED',
  AUTH_INVALID_SIGNATURE: 'AUTH_INVALID_SIGNATURE',
  AUTH_INVALID_NONCE: 'AUTH_INVALID_NONCE',
  SESSION_INVALID: 'SESSION_INVALID',
  RATE_LIMITED: 'RATE_LIMITED',
};

/** The 1200 reply of an rfq.* failure: the typed RFQ error of docs/spec/interface.md 7.2. */
export function rfqFailure(id: RpcRequest['id'], error: RfqError, operationId: string): RpcReply {
  const data: Record<string, unknown> = {
    error: error.code,
    reason: error.reason,
    message: error.message,
    operation_id: operationId,
    retryable: error.retryable,
  };
  if (error.extras.rfqId) data.rfq_id = error.extras.rfqId;
  if (error.extras.quoteId) data.quote_id = error.extras.quoteId;
  if (error.extras.details !== undefined) data.details = error.extras.details;
  if (error.extras.retryAfterMs !== undefined) data.retry_after_ms = error.extras.retryAfterMs;
  if (error.extras.payload !== undefined) data.payload = error.extras.payload;
  if (error.extras.reason !== undefined) data.reason = error.extras.reason;
  return { jsonrpc: '2.0', id, error: { code: RPC_CODES.RFQ_ERROR, message: error.message, data } };
}

/** The metrics outcome of a reply: `ok`, or the error's code name (`data.error`, e.g. RFQ_NOT_FOUND, INVALID_PARAMS). */
export function rpcOutcome(reply: RpcReply): string {
  if (!reply.error) return 'ok';
  const name = (reply.error.data as { error?: unknown } | undefined)?.error;
  return typeof name === 'string' ? name : String(reply.error.code);
}

/**
 * Runs one JSON-RPC request: method lookup, the method's declared access, RFQ switches and rate
 * limit (RfqAdmission), the handler, and the one mapping of errors to codes (docs/spec/design.md section 4).
 */
@Injectable()
export class RpcDispatcher {
  constructor(
    private readonly registry: RpcRegistry,
    private readonly metrics: MetricsService,
    private readonly access: AccountAccessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly publicLimit: PublicRateLimit,
    private readonly admission: RfqAdmission,
  ) {}

  /**
   * Who the caller is now: the connection's token with its account's current roles (docs/spec/design.md
   * section 10), or null once the sign-in lapsed (the connection is told, and is as before sign-in).
   * No I/O on a cache hit.
   */
  private async principalOf(caller: CallerState): Promise<Principal | null> {
    const token = caller.principal;
    if (!token) return null;
    const pending = this.access.current(token);
    const current = pending instanceof Promise ? await pending : pending;
    if (typeof current !== 'string') return current;
    caller.lapse(current);
    return null;
  }

  /** Runs the request and counts it: method (`unknown` when not registered) and outcome, with its duration. */
  async dispatch(request: RpcRequest, caller: CallerState): Promise<RpcReply> {
    const started = performance.now();
    const method = this.registry.get(request.method);
    let reply: RpcReply;
    if (!method) reply = failure(request.id, 'METHOD_NOT_FOUND', `method ${JSON.stringify(request.method).slice(0, 80)} does not exist`);
    // The sign-in methods keep their own limits (nonces, attempts); every other public method takes from the public bucket.
    else if (method.access.kind === 'public' && !method.declaration.ownRateLimit) reply = await this.runPublic(method, request, caller);
    else reply = await this.run(method, request, caller);
    this.metrics.rpcCall(method?.name ?? 'unknown', rpcOutcome(reply), (performance.now() - started) / 1000);
    return reply;
  }

  /**
   * A public read: the client IP's public bucket first (docs/spec/design.md section 16), answered at
   * once when refused. No promise when this instance holds a token for the IP.
   */
  private runPublic(method: RegisteredMethod, request: RpcRequest, caller: CallerState): RpcReply | Promise<RpcReply> {
    const admitted = this.publicLimit.admit(caller.clientIp);
    if (admitted === 0) return this.run(method, request, caller);
    if (typeof admitted === 'number') return this.publicRefusal(request, admitted);
    return admitted.then((wait) => (wait === 0 ? this.run(method, request, caller) : this.publicRefusal(request, wait)));
  }

  /** The public bucket's refusal: 1005 with when to try again. */
  private publicRefusal(request: RpcRequest, wait: number): RpcReply {
    const { publicRatePerSecond: rate, publicRateBurst: burst } = this.config;
    return failure(request.id, 'RATE_LIMITED', `at most ${rate} public requests per second from one address (burst ${burst})`, wait);
  }

  /**
   * The method's access, RFQ switches and rate limit, then its handler; every failure mapped to a
   * reply. A failure gets its operation id (a fresh UUID, in the reply and the log line) when it
   * happens: a call that succeeds has nothing to quote.
   */
  private async run(method: RegisteredMethod, request: RpcRequest, caller: CallerState): Promise<RpcReply> {
    const isRfq = method.declaration.dialect === 'rfq';
    try {
      const principal = await this.principalOf(caller);
      if (isRfq) await this.admission.admit(method, principal);
      else if (checkAccess(method.access, principal)) throw new AppError('AUTH_REQUIRED', 'sign in first');
      const params = request.params;
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        throw isRfq ? new RfqError('RFQ_VALUE_OUT_OF_RANGE', 'params must be an object') : new AppError('INVALID_PARAMS', 'params must be an object');
      }
      // Bounded before any handler walks it (a 20,000-deep value would overflow a recursive check).
      if (deeperThan(params, MAX_PARAMS_DEPTH)) {
        const message = `params nest deeper than ${MAX_PARAMS_DEPTH} levels`;
        throw isRfq ? new RfqError('RFQ_VALUE_OUT_OF_RANGE', message) : new AppError('INVALID_PARAMS', message);
      }
      const command = method.parse(params as Record<string, unknown>);
      const result = await method.handler(command, { principal, clientIp: caller.clientIp, session: caller });
      return success(request.id, result);
    } catch (error) {
      const operationId = randomUUID();
      return isRfq ? this.rfqError(request, error, operationId, caller) : this.appError(request, error, operationId, caller);
    }
  }

  private rfqError(request: RpcRequest, error: unknown, operationId: string, caller: CallerState): RpcReply {
    let rfqError: RfqError;
    if (error instanceof RfqError) rfqError = error as RfqError;
    else if (error instanceof AppError && error.code === 'INVALID_PARAMS') rfqError = new RfqError('RFQ_VALUE_OUT_OF_RANGE', error.message);
    else {
      // A fault (database or Redis down, a bug): retryable, never a stack trace to the client.
      this.logFault(request, error, operationId, caller);
      rfqError = new RfqError('RFQ_NOT_READY', `internal error; quote operation_id ${operationId} to support`, { reason: 'internal_error' });
    }
    logger.event(
      'info',
      'rpc failed',
      { ...callerFields(caller, operationId), method: request.method, error: rfqError.code, retryable: rfqError.retryable },
      'Rpc',
    );
    return rfqFailure(request.id, rfqError, operationId);
  }

  private appError(request: RpcRequest, error: unknown, operationId: string, caller: CallerState): RpcReply {
    const name = error instanceof AppError ? APP_TO_RPC[error.code] : undefined;
    if (name && error instanceof AppError) {
      return failure(request.id, name, error.message, name === 'RATE_LIMITED' ? (error.retryAfterMs ?? DEFAULT_RETRY_MS) : undefined);
    }
    this.logFault(request, error, operationId, caller);
    const reply = failure(request.id, 'INTERNAL_ERROR', `internal error; quote operation_id ${operationId} to support`);
    (reply.error!.data as Record<string, unknown>).operation_id = operationId;
    return reply;
  }

  private logFault(request: RpcRequest, error: unknown, operationId: string, caller: CallerState): void {
    logger.event(
      'error',
      'rpc fault',
      { ...callerFields(caller, operationId), method: request.method, error: String(error), stack: (error as Error)?.stack },
      'Rpc',
    );
  }
}

/** A RATE_LIMITED refusal that does not know its wait says one second. */
const DEFAULT_RETRY_MS = 1000;

/** What every JSON-RPC log line says of its call: the operation, the connection, the account (docs/observability.md). */
function callerFields(caller: CallerState, operationId: string): Record<string, unknown> {
  return { operation_id: operationId, connection_id: caller.connectionId, account_id: caller.principal?.accountId ?? null };
}
