import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * The console's policy (docs/spec/design.md section 10 gives every other response `default-src 'none'`):
 * its own scripts, styles and connections only, images from itself and data: URLs. No inline
 * script or style element; the charts set element styles from script, which CSP does not govern.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where `npm run build` writes the console bundle: dist/console (from src/ in tests, from dist/src/ in production). */
function consoleDirectory(): string {
  const root = resolve(__dirname, '../../..');
  return basename(root) === 'dist' ? join(root, 'console') : join(root, 'dist', 'console');
}

/** Serves the built console at /console (index.html for /console and /console/). */
export async function serveConsole(app: NestFastifyApplication): Promise<void> {
  const root = consoleDirectory();
  const fastify = app.getHttpAdapter().getInstance();
  if (!existsSync(join(root, 'index.html'))) {
    // Not built (a test or a dev run before `npm run build`): say so instead of a bare 404.
    fastify.get('/console', (_request, reply) => {
      void reply.status(503).header('content-type', 'text/plain; charset=utf-8').send('The console is not built: run npm run build.');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    decorateReply: false,
    index: ['index.html'],
    // @fastify/static 10 hands the Fastify reply here.
    setHeaders: (reply: { header(name: string, value: string): unknown }) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('cache-control', 'no-cache');
    },
  });
  // The address people type: relative asset paths need the trailing slash.
  fastify.get('/console', (_request, reply) => {
    void reply.redirect('/console/', 302);
  });
}
