import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { PublicRateLimit } from '../rate-limit/public-rate-limit';
import { clientIp } from './client-ip';
import { retryAfterSeconds } from './retry-after';

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/** Never limited by the public bucket: probes and scrapes (docs/spec/design.md section 16). */
function probe(url: string): boolean {
  return url === '/metrics' || url === '/health' || url.startsWith('/health/');
}

/**
 * Puts the public bucket (docs/spec/design.md section 16) in front of every unauthenticated route:
 * each route is looked at once, as it is registered, and only those `authenticated` does not
 * claim (nor /health*, /metrics) get the hook. An authenticated route pays nothing for it, not
 * even a lookup per request.
 */
export function limitPublicRoutes(
  fastify: FastifyInstance,
  authenticated: (method: string, url: string) => boolean,
  limit: PublicRateLimit,
  trustProxy: number,
  rule: { ratePerSecond: number; burst: number },
): void {
  const message = JSON.stringify({ error: `at most ${rule.ratePerSecond} public requests per second from one address (burst ${rule.burst})` });
  const refuse = (reply: FastifyReply, waitMs: number) => {
    void reply.code(429).header('retry-after', retryAfterSeconds(waitMs)).header('content-type', 'application/json; charset=utf-8').send(message);
  };
  const hook: Hook = (request, reply, done) => {
    const admitted = limit.admit(clientIp(request.headers['x-forwarded-for'], request.socket, trustProxy));
    if (admitted === 0) return done();
    if (typeof admitted === 'number') return refuse(reply, admitted);
    admitted.then((wait) => (wait === 0 ? done() : refuse(reply, wait)), done);
  };
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat().map((m) => (m === 'HEAD' ? 'GET' : m));
    if (probe(route.url) || methods.every((m) => authenticated(m, route.url))) return;
    const existing = [route.onRequest ?? []].flat() as Hook[];
    if (!existing.includes(hook)) route.onRequest = [...existing, hook] as RouteOptions['onRequest'];
  });
}
