import { type CallHandler, type ExecutionContext, HttpException, Inject, Injectable, type NestInterceptor, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { type Observable, catchError, from, mergeMap, throwError } from 'rxjs';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError, RfqError } from '../../common/errors/app-error';
import { isDependencyDown } from '../../common/errors/dependency';
import { httpStatusOf } from '../../common/errors/http-status';
import { clientIp } from '../../common/http/client-ip';
import { logger } from '../../common/logging/logger';
import { ACCESS, type Access, type Principal } from '../../common/access/access';
import type { AuthenticatedRequest } from '../../common/access/access';
import { AuditService } from './audit.service';
import type { AuditActor } from './domain/audit-chain';
import { redactParams } from './domain/audit-params';

/** The status the HTTP filter will answer an error with (HttpErrorFilter's mapping, for the record). */
function failureStatus(error: unknown): number {
  if (error instanceof AppError || error instanceof RfqError) return httpStatusOf(error);
  if (error instanceof HttpException) return error.getStatus();
  return isDependencyDown(error) ? 503 : 500;
}

/**
 * The session token's `jti`, read from the bearer credential the AuthGuard has just verified (the
 * principal carries the account and wallet, not the token's id).
 */
function jtiOf(authorization: string | undefined): string | null {
  const payload = authorization?.split(' ')[1]?.split('.')[1];
  if (!payload) return null;
  try {
    const jti = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { jti?: unknown }).jti;
    return typeof jti === 'string' ? jti : null;
  } catch {
    return null;
  }
}

function actorOf(principal: Principal, authorization: string | undefined): AuditActor {
  if (principal.via === 'admin_token') return { via: 'admin_token', account_id: null, wallet: null, jti: null };
  return { via: 'session', account_id: principal.accountId, wallet: principal.wallet, jti: jtiOf(authorization) };
}

/**
 * Every admin command (a non-GET route with admin access) appends its audit row after its handler
 * has run, whatever the outcome (docs/spec/design.md section 16). Why an interceptor:
 * - it runs after the AuthGuard, so the actor is established (a request the guard refused is no
 *   admin action; recording those would let anyone without a credential grow the chain and make
 *   admin commands queue behind them);
 * - it wraps the pipes and the handler, so a command refused by validation or failing in its
 *   service is recorded with the status the HTTP filter will give it;
 * - it runs before the reply is sent: a command is never answered before its record is committed,
 *   and when the record cannot be written the command is answered with that error (503 or 500),
 *   never as done without its record (the log line below still names the actor);
 * - a filter sees failures only, the guard sees no outcome, and Fastify's onResponse runs after
 *   the reply is gone.
 * Applied per admin controller (`@UseInterceptors(AuditTrail)`), not globally, so that no other
 * route pays for it; test/e2e/audit.e2e-spec.ts fails if an admin command route is without it.
 * A declared admin command is recorded by the same code (`recordCommand`, called by declared-routes.ts).
 */
@Injectable()
export class AuditTrail implements NestInterceptor {
  /** Each handler's command and success status, read from its metadata once (null: not a command). */
  private readonly commands = new WeakMap<object, { action: string; status: number } | null>();

  constructor(
    private readonly audit: AuditService,
    private readonly reflector: Reflector,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const command = this.commandOf(context);
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!command || !request.principal) return next.handle();
    const record = (status: number) => this.record(request, request.principal!, command.action, status);
    return next.handle().pipe(
      mergeMap((result: unknown) => from(record(command.status).then(() => result))),
      // The command's own error is its answer; a record that failed as well has been logged.
      catchError((error: unknown) => from(record(failureStatus(error)).catch(() => undefined)).pipe(mergeMap(() => throwError(() => error)))),
    );
  }

  private commandOf(context: ExecutionContext): { action: string; status: number } | null {
    const handler = context.getHandler();
    let command = this.commands.get(handler);
    if (command === undefined) {
      const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, context.getClass()]);
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const status = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === RequestMethod.POST ? 201 : 200);
      command = access?.kind === 'admin' && method !== RequestMethod.GET ? { action: access.command, status } : null;
      this.commands.set(handler, command);
    }
    return command;
  }

  /**
   * Records an admin command served straight on Fastify (a declared route: common/http/declared-routes.ts),
   * at the same point as the interceptor: after the access check, around the input's checks and the
   * handler, before the reply. Its principal is the one the access check set.
   */
  recordCommand(request: AuthenticatedRequest, action: string, status: number): Promise<void> {
    return this.record(request, request.principal!, action, status);
  }

  /** The status a declared command's error will be answered with, for its record. */
  failureStatus(error: unknown): number {
    return failureStatus(error);
  }

  private async record(request: AuthenticatedRequest, principal: Principal, action: string, status: number): Promise<void> {
    const actor = actorOf(principal, request.headers.authorization);
    const target = Object.keys((request.params as object | undefined) ?? {}).length > 0 ? redactParams(request.params) : null;
    const fields = {
      operation_id: request.id,
      action,
      status,
      actor,
      client_ip: clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy),
    };
    try {
      const row = await this.audit.record({
        at: this.clock.now(),
        actor,
        client_ip: fields.client_ip,
        action,
        target,
        params: redactParams(request.body),
        status,
      });
      logger.event('info', 'admin command', { ...fields, audit_seq: row.audit_seq }, 'Audit');
    } catch (error) {
      logger.event('error', 'admin command not recorded', { ...fields, error: String(error) }, 'Audit');
      throw error;
    }
  }
}
