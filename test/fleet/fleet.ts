import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './free-port';

export { freePort };

/**
 * Several instances of the exchange as separate processes (`node dist/src/main.js`), with a
 * private Redis and, when asked, a private PostgreSQL cluster, each on its own port in a temp
 * directory: the multi-instance e2e tests and `npm run chaos` stop, kill and restart them without
 * touching the shared servers on 5432 / 6379. Loopback only.
 */

export const ROOT = resolve(__dirname, '..', '..', ...(__dirname.includes(`${join('chaos', '.build')}`) ? ['..', '..'] : []));
/** The newest PostgreSQL server binaries installed (Debian layout), or PG_BIN. */
const PG_BIN = process.env.PG_BIN ?? newestPostgresBin();

function newestPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return join(root, versions[0] ?? '15', 'bin');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 15_000, what = 'condition'): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await (async () => check())().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * Builds dist/src/main.js unless `npm run test:long` already did before its workers started
 * (LEGWORK_PREBUILT=1). tsc rewrites every file of dist, so a build while another file's instance
 * starts can hand that instance a half-written module ("the provider at index [1] ... is
 * undefined": the official CI's red of 2026-11-29). Every e2e file that runs dist builds here.
 */
export function buildAppUnlessPrebuilt(): void {
  if (process.env.LEGWORK_PREBUILT !== '1') buildApp();
}

/** tsc into dist (the server part of `npm run build`). */
export function buildApp(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

export function hasBinaries(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync(join(PG_BIN, 'pg_ctl'), ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A redis-server of our own: stopped and restarted (empty: no persistence, as after a failover to a cold replica). */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  async start(): Promise<void> {
    if (this.child) return;
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(() => this.cli('ping') === 'PONG', 10_000, 'redis up');
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Drops every pub/sub connection (a network blip between the instances and Redis). */
  killPubsub(): string {
    return this.cli('client', 'kill', 'type', 'pubsub');
  }

  cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  }
}

/** A PostgreSQL cluster of our own (the server refuses root: run as the postgres user). */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'legwork-pg-'));
    chownSync(dir, ...postgresIds());
    const pg = new PrivatePostgres(await freePort(), dir);
    asPostgres(join(PG_BIN, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'], dir);
    await pg.start();
    return pg;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    asPostgres(
      join(PG_BIN, 'pg_ctl'),
      [
        '-D',
        join(this.dir, 'data'),
        '-l',
        join(this.dir, 'log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
        'start',
      ],
      this.dir,
    );
  }

  /** `fast`: a clean restart (connections are cut); `immediate`: as after a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', join(this.dir, 'data'), '-m', mode, '-w', 'stop'], this.dir);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  psql(sql: string, database = 'postgres'): string {
    return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', database, '-Atqc', sql], { encoding: 'utf8' }).trim();
  }
}

function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}

function asPostgres(command: string, args: string[], cwd: string): void {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { cwd, stdio: 'ignore' });
  else execFileSync(command, args, { cwd, stdio: 'ignore' });
}

/** One instance: `node dist/src/main.js` on its own port, its output in a log file. */
export class Instance {
  private child: ChildProcess | null = null;
  private exit: Promise<number | null> = Promise.resolve(null);
  readonly log: string;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    logDir: string,
  ) {
    this.log = join(logDir, `${name}.log`);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/client`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and waits until /health answers 200. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child) return;
    const out = openSync(this.log, 'a');
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    this.child = child;
    this.exit = new Promise((done) =>
      child.once('exit', (code) => {
        if (this.child === child) this.child = null;
        done(code);
      }),
    );
    // An exit while starting fails the start at once, with the log's tail (waitFor takes a throw in
    // its check for "not yet", so the exit is raced beside it rather than checked inside it).
    const exited = this.exit.then((code) => {
      throw new Error(`${this.name} exited (code ${code}) while starting; the end of ${this.log}:\n${this.logTail(20)}`);
    });
    exited.catch(() => undefined);
    const healthy = waitFor(async () => this.child !== child || (await fetch(`${this.url}/health`)).status === 200, timeoutMs, `${this.name} healthy`).catch(
      (e: Error) => {
        throw new Error(`${e.message}; the end of ${this.log}:\n${this.logTail(20)}`);
      },
    );
    await Promise.race([healthy, exited]);
  }

  /** The last `lines` lines of the instance's log, without the per-request lines. */
  logTail(lines: number): string {
    if (!existsSync(this.log)) return '(no log)';
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('"http"'))
      .slice(-lines)
      .join('\n');
  }

  /** Sends `signal` and waits for the exit; the exit code (null when killed by the signal). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child) return null;
    const exit = this.exit;
    child.kill(signal);
    const code = await exit;
    this.child = null;
    return code;
  }
}

/** Instances sharing one database and one Redis prefix. */
export class Fleet {
  readonly instances: Instance[] = [];
  readonly logDir: string;

  constructor(readonly env: Record<string, string>) {
    this.logDir = mkdtempSync(join(tmpdir(), 'legwork-fleet-'));
  }

  async add(count: number): Promise<Instance[]> {
    const added: Instance[] = [];
    for (let i = 0; i < count; i++) {
      const instance = new Instance(`instance-${this.instances.length + 1}`, await freePort(), this.env, this.logDir);
      this.instances.push(instance);
      added.push(instance);
    }
    // The first one alone (it runs the migrations), then the others together.
    await added[0].start();
    await Promise.all(added.slice(1).map((i) => i.start()));
    return added;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.stop('SIGTERM').catch(() => null)));
  }

  cleanup(): void {
    rmSync(this.logDir, { recursive: true, force: true });
  }
}
