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
  /** The rests in progress, woken by `stop()`. */
  private readonly resting = new Set<() => void>();

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

  /**
   * Waits `ms` between a pass's statements, or until `stop()`: a rest sized from a slow statement
   * (a loaded database) must not hold a shutdown up for as long.
   */
  rest(ms: number): Promise<void> {
    if (this.halted || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.resting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.resting.add(wake);
    });
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const wake of [...this.resting]) wake();
    const started = Date.now();
    await this.running;
    const ms = Date.now() - started;
    // A pass that holds the shutdown up for long is worth seeing (it checks `stopped` between items).
    if (ms > 1000) logger.event('info', `${this.name}: stopped after its pass`, { ms }, 'Sweep');
  }
}
