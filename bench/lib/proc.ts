import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the compiled bench lives (bench/.build/bench), to find the server scripts. */
const BUILD_DIR = join(__dirname, '..');
const CLK_TCK = 100;

/** utime + stime (+ cutime + cstime with `children`) of a process, in seconds; null when it is gone. */
export function procCpuSeconds(pid: number, children = false): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  let ticks = Number(fields[11]) + Number(fields[12]);
  if (children) ticks += Number(fields[13]) + Number(fields[14]);
  return ticks / CLK_TCK;
}

export interface MemorySample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface ServerMessage {
  type: string;
  [key: string]: unknown;
}

/**
 * A server under test in its own process (forked, with an IPC channel): it sends
 * `{ type: 'ready', port }` once listening and answers `{ type: 'memory' }` and other requests.
 */
export class ServerProcess {
  private readonly waiters = new Map<string, Array<(m: ServerMessage) => void>>();
  private exited = false;
  readonly exit: Promise<number | null>;
  port = 0;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    child.on('message', (m: ServerMessage) => {
      const list = this.waiters.get(m.type);
      const resolve = list?.shift();
      if (resolve) resolve(m);
    });
    this.exit = new Promise((resolve) =>
      child.on('exit', (code) => {
        this.exited = true;
        for (const [type, list] of this.waiters) for (const w of list) w({ type: 'exit', code, waitedFor: type });
        this.waiters.clear();
        resolve(code);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Forks `bench/.build/bench/servers/<script>.js` with `env` on top of the current environment,
   * stdout and stderr to `logFile`, and waits for its ready message.
   */
  static async start(
    name: string,
    script: string,
    env: Record<string, string>,
    options: { logFile: string; nodeArgs?: string[]; timeoutMs?: number },
  ): Promise<ServerProcess> {
    const fd = openSync(options.logFile, 'w');
    const child = fork(join(BUILD_DIR, 'servers', `${script}.js`), [], {
      env: { ...process.env, ...env },
      execArgv: ['--expose-gc', ...(options.nodeArgs ?? [])],
      stdio: ['ignore', fd, fd, 'ipc'],
    });
    closeSync(fd);
    const server = new ServerProcess(name, child, options.logFile);
    const ready = await server.waitFor('ready', options.timeoutMs ?? 60_000);
    if (ready.type !== 'ready') throw new Error(`${name} did not start (exit ${String(ready.code)}); see ${options.logFile}:\n${tail(options.logFile)}`);
    server.port = Number(ready.port);
    return server;
  }

  waitFor(type: string, timeoutMs = 30_000): Promise<ServerMessage> {
    if (this.exited) return Promise.resolve({ type: 'exit', code: this.child.exitCode });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no ${type} message in ${timeoutMs} ms`)), timeoutMs);
      const list = this.waiters.get(type) ?? [];
      list.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.waiters.set(type, list);
    });
  }

  /** Sends a request and waits for the answer of the same type. */
  async request(message: ServerMessage, timeoutMs = 30_000): Promise<ServerMessage> {
    const answer = this.waitFor(message.type, timeoutMs);
    this.child.send(message);
    const reply = await answer;
    if (reply.type === 'exit') throw new Error(`${this.name} exited while answering ${message.type}; see ${this.logFile}:\n${tail(this.logFile)}`);
    if (reply.error) throw new Error(`${this.name}: ${typeof reply.error === 'string' ? reply.error : JSON.stringify(reply.error)}`);
    return reply;
  }

  /** Full GC in the server, then its memory (process.memoryUsage()). */
  async memory(): Promise<MemorySample> {
    const m = await this.request({ type: 'memory' });
    return m.memory as MemorySample;
  }

  cpuSeconds(): number {
    const s = procCpuSeconds(this.pid);
    if (s === null) throw new Error(`${this.name} (pid ${this.pid}) is gone; see ${this.logFile}:\n${tail(this.logFile)}`);
    return s;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }
}

/** The last lines of a log file (for failure messages). */
function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Runs a command to completion, collecting stdout and stderr. */
export function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
    child.on('error', reject);
    child.on('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, pid: child.pid ?? 0 });
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
