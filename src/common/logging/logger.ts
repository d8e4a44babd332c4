import type { LoggerService } from '@nestjs/common';
import type { LogLevel } from '../config/config';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Log lines written together: the lines of one event-loop turn go out in one write (a busy
 * server logs a line per request: one write syscall each cost about 4 % of a query API request's
 * CPU). `error` and `warn` lines are written at once with what is waiting; the rest by the end of
 * the turn, and whatever is left at process exit.
 */
export class LineBatch {
  private lines: string[] = [];
  private scheduled = false;

  constructor(
    private readonly out: (text: string) => void,
    private readonly maxLines = 512,
  ) {}

  push(line: string, urgent = false): void {
    this.lines.push(line);
    if (urgent || this.lines.length >= this.maxLines) {
      this.flush();
      return;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush).unref();
    }
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    this.out(text);
  };
}

const stdoutLines = new LineBatch((text) => process.stdout.write(text));

/** Writes the log lines still waiting (the entry point calls it at process exit). */
export const flushLogs = (): void => stdoutLines.flush();

/**
 * Structured JSON logs, one object a line on stdout: time, level, msg, context, and the fields
 * given. Used by Nest itself and by the services. A line about a request or a JSON-RPC call names
 * it in its fields (`operation_id`): there is no implicit context (an AsyncLocalStorage costs a
 * promise hook on every promise of the process, about a tenth of a query API request's CPU).
 */
export class JsonLogger implements LoggerService {
  constructor(
    private level: LogLevel = 'info',
    private readonly write: (line: string, urgent: boolean) => void = (line, urgent) => stdoutLines.push(line, urgent),
  ) {}

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
    this.write(toJson({ ...line, ...fields }), RANK[level] >= RANK.warn);
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
      msg = 'msg' in message ? String(message.msg) : '';
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
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
}

/** One logger for the process (Nest's own lines and ours share it). */
export const logger = new JsonLogger();
