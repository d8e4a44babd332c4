import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RfqError } from '../errors/app-error';
import { isDependencyDown } from '../errors/dependency';
import { httpStatusOf } from '../errors/http-status';
import { logger } from '../logging/logger';
import { retryAfterSeconds } from './retry-after';

/**
 * The one HTTP mapping of errors: every error body is `{ error }` (docs/spec/design.md section 8).
 * Faults are logged with the request id and never shown to the client.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendHttpError(exception, host.switchToHttp().getRequest<FastifyRequest>(), host.switchToHttp().getResponse<FastifyReply>());
  }
}

/** Answers a failed request: its `{ error }` body and status (also for the routes served straight on Fastify). */
export function sendHttpError(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, error } = describe(exception, request);
  // Every 429 says when to try again (docs/spec/design.md section 16), with the wait the limiter gave when it gave one.
  if (status === 429) void reply.header('retry-after', retryAfterSeconds(retryAfterOf(exception)));
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send({ error });
}

function describe(exception: unknown, request: FastifyRequest): { status: number; error: string } {
  if (exception instanceof AppError || exception instanceof RfqError) {
    return { status: httpStatusOf(exception), error: exception.message };
  }
  if (exception instanceof HttpException) {
    const body = exception.getResponse();
    const message = typeof body === 'string' ? body : (body as { message?: unknown }).message;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- Nest's messages are strings; anything else is written as String() writes it
    return { status: exception.getStatus(), error: Array.isArray(message) ? message.join('; ') : String(message ?? exception.message) };
  }
  // Fastify's own errors (body too large, bad JSON, bad content type) carry a statusCode.
  const fastify = exception as { statusCode?: number; code?: string; message?: string };
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, error: 'request body is larger than 64 KiB' };
    return { status: fastify.statusCode, error: fastify.message ?? 'bad request' };
  }
  if (isDependencyDown(exception)) {
    logger.event('warn', 'dependency down', { request_id: request.id, error: String(exception) }, 'Http');
    return { status: 503, error: `a dependency is unavailable, retry later (request ${request.id})` };
  }
  logger.event('error', 'request failed', { request_id: request.id, error: String(exception), stack: (exception as Error)?.stack }, 'Http');
  return { status: 500, error: `internal error (request ${request.id})` };
}

function retryAfterOf(exception: unknown): number | undefined {
  if (exception instanceof AppError) return exception.retryAfterMs;
  if (exception instanceof RfqError) return exception.extras.retryAfterMs;
  return undefined;
}
