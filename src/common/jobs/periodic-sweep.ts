import { logger } from '../logging/logger';

/**
 * A sweep that runs every `intervalMs` on every instance (docs/spec/design.md section 5: the database-driven
 * safety net behind the jobs). One pass at a time per instance; `stop()` waits for the running
 * pass, and a pass checks `stopped` between items so shutdown is not held up by a long batch.
 */
export class PeriodicSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private halted = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<void>,
  ) {}

  /** Starts the timer and runs a first pass now. */
  start(): void {
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
    void this.run();
  }

  get stopped(): boolean {
    return this.halted;
  }

  /** One pass now (or the one already running); never throws. */
  run(): Promise<void> {
    if (this.running || this.halted) return this.running ?? Promise.resolve();
    this.running = this.pass()
      .catch((error) => logger.event('warn', `${this.name} failed`, { error: String(error) }, 'Sweep'))
      .finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const started = Date.now();
    await this.running;
    // A pass that holds the shutdown up for long is worth seeing (it checks `stopped` between items).
    if (Date.now() - started > 1000) logger.event('info', `${this.name}: stopped after its pass`, { ms: Date.now() - started }, 'Sweep');
  }
}
