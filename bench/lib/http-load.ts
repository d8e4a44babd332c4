import autocannon from 'autocannon';

export interface HttpLoadResult {
  requests: number;
  seconds: number;
  rps: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  measured: unknown;
}

/**
 * autocannon against one URL: `connections` keep-alive connections, one request in flight each
 * (closed loop: the maximum rate), or `rate` requests per second overall (open loop, -R).
 */
export async function httpLoad(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string>; rate?: number; measure?: () => Promise<() => Promise<unknown>> },
): Promise<HttpLoadResult> {
  const stop = options.measure ? await options.measure() : null;
  const t0 = performance.now();
  const result = await autocannon({
    url,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    headers: options.headers ?? {},
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  const seconds = (performance.now() - t0) / 1000;
  const measured = stop ? await stop() : null;
  const requests = result.requests.total as number;
  return {
    requests,
    seconds,
    rps: requests / seconds,
    non2xx: result.non2xx as number,
    errors: result.errors as number,
    p50: result.latency.p50 as number,
    p99: result.latency.p99 as number,
    measured,
  };
}
