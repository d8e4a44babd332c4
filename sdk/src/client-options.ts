import type { MethodName, MethodResult } from '@legwork/protocol';
import type WebSocket from 'ws';
import type { RateLimitRetryOptions } from './rate-limit';
import type { AuthResult } from './types';

/** Reconnect backoff: delay of attempt n = min(maxDelayMs, initialDelayMs * factor^(n-1)), less up to `jitter` of it. */
export interface ReconnectOptions {
  /** Default 250. */
  initialDelayMs?: number;
  /** Default 10,000. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Fraction of the delay taken off at random, 0 to 1. Default 0.2. */
  jitter?: number;
  /** Attempts before giving up (the client then closes). Default: no limit. */
  maxAttempts?: number;
}

/** Options of {@link LegworkClient}. */
export interface LegworkClientOptions {
  /** Per-request timeout, including any wait for a reconnection. Default 10,000 ms. */
  requestTimeoutMs?: number;
  /** Reconnect automatically (default true), with these backoff settings. */
  reconnect?: boolean | ReconnectOptions;
  /** Client-side ping interval: a connection that did not answer the previous ping is cut (and reconnected). 0 disables. Default 15,000 ms. */
  heartbeatMs?: number;
  /** Service name for the sign-in message when the server does not send it (default "Legwork"). */
  serviceName?: string;
  /** Options passed to `new WebSocket(url, options)` (headers, TLS, ...). */
  wsOptions?: WebSocket.ClientOptions;
  /**
   * Wait `retry_after_ms` and send again when a call is refused with RATE_LIMITED (1005) or
   * RFQ_RATE_LIMITED: on by default (3 retries, waits up to 10 s); `false` throws the refusal at
   * once. A refused call did not run, so sending it again is safe. Batches are not retried.
   */
  rateLimitRetry?: boolean | RateLimitRetryOptions;
}

/** A `seq` gap on the connection: `missed` notifications were lost. */
export interface GapInfo {
  channel: string;
  expected: number;
  received: number;
  missed: number;
}

/** Events of {@link LegworkClient}. */
export interface LegworkClientEvents {
  /** Every subscription notification: its channel and `params.data` (`{ seq, event, rfq, ... }`). */
  notification: [channel: string, data: Record<string, unknown>];
  /** A `seq` gap: notifications were lost (resync with `listRfqs` / `poll`). */
  gap: [info: GapInfo];
  /** The connection closed (a reconnection follows unless the client was closed or reconnecting is off). */
  disconnected: [info: { code: number; reason: string }];
  /** A reconnection attempt is scheduled. */
  reconnecting: [info: { attempt: number; delayMs: number }];
  /**
   * Reconnected, the session resumed and the channels re-subscribed. Notifications sent while
   * disconnected are lost: resync with `listRfqs` / `poll`.
   */
  reconnected: [info: { attempt: number; session: AuthResult | null }];
  /** Restoring the session or a subscription after a reconnection failed on the server's answer. */
  resumeError: [error: Error];
  /** The client is closed for good (by `close()`, or after the last reconnection attempt). */
  closed: [];
}

/** The outcome of one request of a batch. */
export type BatchOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: Error };

/** One request of a batch. */
export interface BatchRequest {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * What `call` resolves with: the declared result of a method of the contract, `T` when given, else
 * unknown (a method the contract does not know).
 */
export type CallResult<T, M extends string> = [T] extends [never] ? (M extends MethodName ? MethodResult<M> : unknown) : T;
