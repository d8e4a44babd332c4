import Redis from 'ioredis';

/** One command sent by the server to Redis, as ioredis saw it. */
export interface TracedCommand {
  /** The command, or for EVALSHA the name of the Lua script (BullMQ's `moveToActive`, `addStandardJob`, ...). */
  name: string;
  /** Its string arguments, each cut at 200 characters (job ids, channel names and payloads to match on). */
  args: string[];
  /** Sent at: epoch milliseconds with a fraction (performance.timeOrigin + now). */
  at: number;
  /** Until its reply (for a blocking command: the time it waited). */
  ms: number;
}

/**
 * Wraps ioredis' `Redis.prototype.sendCommand` (every command, pipelined ones too, passes there)
 * so that between start() and stop() every command's name, arguments and timing is recorded.
 * EVALSHA is named after its script, from the client's own `scriptsSet` (BullMQ defines its Lua
 * scripts with `defineCommand`). Costs a flag test when not recording.
 */
export function installRedisTrace() {
  type Command = { name: string; args: unknown[]; promise: Promise<unknown> };
  const proto = Redis.prototype as unknown as { sendCommand: (command: Command, ...rest: unknown[]) => unknown };
  const original = proto.sendCommand;
  let recording: TracedCommand[] | null = null;
  const scriptNames = new Map<string, string>();

  proto.sendCommand = function patched(this: { scriptsSet?: Record<string, { sha: string }> }, command: Command, ...rest: unknown[]) {
    const log = recording;
    if (!log || !command || typeof command.name !== 'string') return original.call(this, command, ...rest);
    let name = command.name;
    if (name === 'evalsha' && command.args.length > 0) {
      const sha = String(command.args[0]);
      if (!scriptNames.has(sha)) for (const [script, s] of Object.entries(this.scriptsSet ?? {})) scriptNames.set(s.sha, script);
      name = scriptNames.get(sha) ?? `evalsha:${sha.slice(0, 8)}`;
    }
    const started = performance.now();
    // A PUBLISH keeps its whole payload (the notification, to find its RFQ and event), other arguments 2,000 characters (BullMQ's packed job options hold the job id).
    const cut = name === 'publish' ? 20_000 : 2000;
    const entry: TracedCommand = {
      name,
      args: command.args.map((a) => (Buffer.isBuffer(a) ? a.toString('latin1') : String(a)).slice(0, cut)),
      at: performance.timeOrigin + started,
      ms: 0,
    };
    log.push(entry);
    const result = original.call(this, command, ...rest);
    const settle = () => {
      entry.ms = performance.now() - started;
    };
    command.promise?.then(settle, settle);
    return result;
  };

  return {
    start(): void {
      recording = [];
    },
    stop(): TracedCommand[] {
      const out = recording ?? [];
      recording = null;
      return out;
    },
  };
}
