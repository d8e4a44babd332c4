import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import type { LogLevel } from '../config/config';

/** The request or operation id of the work in progress, carried through async calls. */
export const operationContext = new AsyncLocalStorage<{ operationId: string }>();

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Structured JSON logs, one object a line on stdout: time, level, msg, context, the current
 * operation id, and any fields given. Used by Nest itself and by the services.
 */
export class JsonLogger implements LoggerService {
  constructor(private level: LogLevel = 'info', private readonly write: (line: string) => void = (line) => process.stdout.write(line + '\n')) {}

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.emit('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }

  /** A structured line with fields: `logger.event('info', 'rfq.created', { rfq_id })`. */
  event(level: LogLevel, msg: string, fields: Record<string, unknown> = {}, context?: string): void {
    if (RANK[level] < RANK[this.level]) return;
    const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
    if (context) line.context = context;
    const operationId = operationContext.getStore()?.operationId;
    if (operationId) line.operation_id = operationId;
    this.write(toJson({ ...line, ...fields }));
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (RANK[level] < RANK[this.level]) return;
    // Nest passes (message, context) or (message, stack, context).
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const fields: Record<string, unknown> = {};
    let msg: string;
    if (message instanceof Error) {
      msg = message.message;
      fields.stack = message.stack;
    } else if (typeof message === 'object' && message !== null) {
      msg = 'msg' in message ? String((message as { msg: unknown }).msg) : '';
      Object.assign(fields, message);
      delete fields.msg;
    } else {
      msg = String(message);
    }
    if (level === 'error' && rest.length >= 2 && typeof rest[0] === 'string') fields.stack = rest[0];
    this.event(level, msg, fields, context);
  }
}

/** JSON of a log line; a bigint anywhere is written as its decimal text (the rare slow path). */
function toJson(value: Record<string, unknown>): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  }
}

/** One logger for the process (Nest's own lines and ours share it). */
export const logger = new JsonLogger();
