import { LegworkRpcError } from './errors';

/** Automatic waits on RATE_LIMITED (1005) and RFQ_RATE_LIMITED refusals (see `LegworkClientOptions.rateLimitRetry`). */
export interface RateLimitRetryOptions {
  /** Retries of one call before its refusal is thrown. Default 3. */
  maxRetries?: number;
  /** A refusal asking for a longer wait than this is thrown at once. Default 10,000 ms. */
  maxWaitMs?: number;
}

/** What a refusal without `retry_after_ms` waits. */
const DEFAULT_WAIT_MS = 1000;

/** The settings in force: null when the client does not retry. */
export function rateLimitSettings(option: boolean | RateLimitRetryOptions | undefined): Required<RateLimitRetryOptions> | null {
  if (option === false) return null;
  const given = typeof option === 'object' ? option : {};
  return { maxRetries: given.maxRetries ?? 3, maxWaitMs: given.maxWaitMs ?? 10_000 };
}

/** Whether the server refused the call for a rate limit (the call did not run: sending it again is safe). */
export function isRateLimited(error: unknown): error is LegworkRpcError {
  return error instanceof LegworkRpcError && (error.errorName === 'RATE_LIMITED' || error.errorName === 'RFQ_RATE_LIMITED');
}

/**
 * Runs `call`, and again after `retry_after_ms` each time it is refused for a rate limit, up to
 * `maxRetries` times; any other outcome is returned or thrown as is.
 */
export async function withRateLimitRetry<T>(
  call: () => Promise<T>,
  settings: Required<RateLimitRetryOptions> | null,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!settings || attempt >= settings.maxRetries || !isRateLimited(error)) throw error;
      const wait = error.retryAfterMs ?? DEFAULT_WAIT_MS;
      if (wait > settings.maxWaitMs) throw error;
      await sleep(wait);
    }
  }
}
