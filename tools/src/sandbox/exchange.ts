/**
 * The sandbox's exchange: `node dist/src/main.js` (what `npm start` runs) as a child process,
 * always embedded (PGlite in DATA_DIR, jobs in-process), on PORT, with an admin token made up
 * for the run. `fromSource` runs `src/main.ts` through SWC instead (no build; what the sandbox's
 * test does). A temporary DATA_DIR (when none is given) goes at exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LogLine } from '../common';

/** dist-tools/src/sandbox → the repository. */
const ROOT = resolve(__dirname, '..', '..', '..');

export interface ExchangeOptions {
  port: number;
  /** DATA_DIR as given (kept), or undefined: a temporary one, removed at stop. */
  dataDir: string | undefined;
  fromSource: boolean;
  log: LogLine;
}

export class SandboxExchange {
  readonly url: string;
  readonly adminToken = randomBytes(24).toString('hex');
  readonly dataDir: string;
  private readonly temporary: boolean;
  private child: ChildProcess | null = null;
  private readonly tail: string[] = [];
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(private readonly options: ExchangeOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
    this.temporary = options.dataDir === undefined;
    this.dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'legwork-sandbox-'));
  }

  /** Starts the process and waits for /health to answer 200 (at most `timeoutMs`). */
  async start(timeoutMs = 90_000): Promise<void> {
    const main = this.options.fromSource ? ['-r', join(ROOT, 'scripts/openapi/register-ts.cjs'), join(ROOT, 'src/main.ts')] : [join(ROOT, 'dist/src/main.js')];
    if (!this.options.fromSource && !existsSync(main[0])) throw new Error(`${main[0]} is missing: run npm run build first (npm run sandbox does)`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(this.options.port),
      HOST: '127.0.0.1',
      DATA_DIR: this.dataDir,
      ADMIN_TOKEN: this.adminToken,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      // Makers, the taker and a desk's own clients all sign in from 127.0.0.1.
      NONCE_RATE_PER_MINUTE: process.env.NONCE_RATE_PER_MINUTE ?? '120',
    };
    // The sandbox is the embedded exchange, whatever the shell holds.
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'NODE_ENV', 'EXCHANGE_SIGNING_KEY', 'JWT_SECRET']) delete env[name];
    const child = spawn(process.execPath, main, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    // However the sandbox ends (an error, process.exit), its exchange does not outlive it.
    process.once('exit', () => child.kill('SIGKILL'));
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        this.tail.push(line);
        if (this.tail.length > 40) this.tail.shift();
        if (process.env.LEGWORK_SANDBOX_VERBOSE) this.options.log(line);
      }
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    await this.waitHealthy(timeoutMs);
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited.then((code) => (exitCode = code));
    while (Date.now() < deadline) {
      if (exitCode !== undefined) throw new Error(`the exchange exited with ${exitCode}:\n${this.tail.join('\n')}`);
      const status = await fetch(`${this.url}/health`).then(
        (res) => res.status,
        () => 0,
      );
      if (status === 200) return;
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(`the exchange did not answer /health within ${timeoutMs / 1000} s:\n${this.tail.join('\n')}`);
  }

  /** Resolves with the exit code when the process ends by itself. */
  whenExited(): Promise<number | null> {
    return this.exited;
  }

  /** SIGTERM (SIGKILL after 15 s), then the temporary DATA_DIR goes. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (this.temporary) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
