import type Redis from 'ioredis';

/** Resolves `true` when `promise` settles within `ms`, else `false` (it is left to settle or not). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true as const,
    () => true as const,
  );
  const inTime = await Promise.race([settled, timedOut]);
  clearTimeout(timer);
  return inTime;
}

/**
 * Runs `close`, and `fallback` when it has not settled within `ms` (a shutdown must end even when a
 * dependency is in the middle of reconnecting); the fallback gets `fallbackMs` (default `ms`), no
 * more. True when `close` settled in time.
 */
export async function closeWithin(close: () => Promise<unknown>, ms: number, fallback: () => unknown, fallbackMs = ms): Promise<boolean> {
  if (await settlesWithin(Promise.resolve().then(close), ms)) return true;
  await settlesWithin(Promise.resolve().then(fallback), fallbackMs);
  return false;
}

/**
 * QUIT, or a plain disconnect when Redis does not answer within `ms`; a connection that is not
 * ready (Redis down, reconnecting) is disconnected at once: a QUIT would only wait out `ms`.
 */
export async function quitRedis(redis: Redis, ms = 2000): Promise<boolean> {
  if (redis.status !== 'ready') {
    redis.disconnect();
    return false;
  }
  return closeWithin(
    () => redis.quit(),
    ms,
    () => redis.disconnect(),
  );
}
