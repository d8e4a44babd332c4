import WebSocket from 'ws';
import { Samples } from './stats';
import { sleep } from './proc';

/** The id of a JSON-RPC text frame, read without parsing the whole frame (same cost for every server). */
function frameId(text: string): number {
  const at = text.indexOf('"id":');
  return at < 0 ? -1 : parseInt(text.slice(at + 5, at + 25), 10);
}

/** The TCP socket under a ws client (to cork a burst of frames into one write). */
function rawSocket(socket: WebSocket): { cork(): void; uncork(): void } | undefined {
  return (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
}

export function openSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function closeSocket(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.terminate();
      resolve();
    }, 2000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.close();
  });
}

/**
 * Round trips per second over one connection with `depth` requests in flight: each reply sends
 * the next request. `measure` wraps the counted window (CPU meters).
 */
export async function pipelined(
  url: string,
  frame: (id: number) => string,
  options: { depth: number; warmMs: number; windowMs: number; measure?: () => Promise<() => Promise<unknown>> },
): Promise<{ ops: number; seconds: number; measured: unknown; replyBytes: number }> {
  const socket = await openSocket(url);
  let id = 0;
  let count = 0;
  let counting = false;
  let sending = true;
  let inFlight = 0;
  let replyBytes = 0;
  // Replies that arrived in one read are answered with one write (cork), for every server alike.
  let owed = 0;
  const flush = () => {
    const n = owed;
    owed = 0;
    if (!sending || n === 0) return;
    const raw = rawSocket(socket);
    raw?.cork();
    for (let k = 0; k < n; k++) {
      inFlight++;
      socket.send(frame(++id));
    }
    raw?.uncork();
  };
  socket.on('message', (data: Buffer) => {
    inFlight--;
    if (counting) count++;
    if (!replyBytes) replyBytes = data.length;
    if (owed++ === 0) setImmediate(flush);
  });
  owed = options.depth;
  flush();
  await sleep(options.warmMs);
  const stop = options.measure ? await options.measure() : null;
  const t0 = performance.now();
  counting = true;
  await sleep(options.windowMs);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const measured = stop ? await stop() : null;
  sending = false;
  const deadline = Date.now() + 5000;
  while (inFlight > 0 && Date.now() < deadline) await sleep(10);
  await closeSocket(socket);
  return { ops: count, seconds, measured, replyBytes };
}

/**
 * Open-loop load at a fixed rate over one connection: request k is due at start + k / rate and its
 * latency is counted from that due time (no coordinated omission). Percentiles of the requests due
 * inside the window (after `warmMs`); a request unanswered when the run ends counts as answered then.
 */
export async function fixedRate(
  url: string,
  frame: (id: number) => string,
  options: { rate: number; warmMs: number; windowMs: number; drainMs?: number },
): Promise<{ p50: number; p99: number; p999: number; max: number; due: number; answered: number }> {
  const socket = await openSocket(url);
  const total = Math.ceil((options.rate * (options.warmMs + options.windowMs)) / 1000);
  const dueAt = new Float64Array(total + 2);
  const answeredAt = new Float64Array(total + 2);
  let answered = 0;
  socket.on('message', (data: Buffer) => {
    const id = frameId(data.toString());
    if (id > 0 && id <= total && answeredAt[id] === 0) {
      answeredAt[id] = performance.now();
      answered++;
    }
  });
  const start = performance.now() + 5;
  const interval = 1000 / options.rate;
  for (let k = 1; k <= total; k++) dueAt[k] = start + (k - 1) * interval;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const raw = rawSocket(socket);
    const timer = setInterval(() => {
      const now = performance.now();
      raw?.cork();
      while (sent < total && dueAt[sent + 1] <= now) socket.send(frame(++sent));
      raw?.uncork();
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const deadline = performance.now() + (options.drainMs ?? 3000);
  while (answered < total && performance.now() < deadline) await sleep(5);
  const end = performance.now();
  const samples = new Samples();
  const from = start + options.warmMs;
  let due = 0;
  let ok = 0;
  for (let k = 1; k <= total; k++) {
    if (dueAt[k] < from) continue;
    due++;
    if (answeredAt[k]) ok++;
    samples.push((answeredAt[k] || end) - dueAt[k]);
  }
  await closeSocket(socket);
  const values = samples.values();
  let max = 0;
  for (const v of values) max = Math.max(max, v);
  return { p50: samples.percentile(50), p99: samples.percentile(99), p999: samples.percentile(99.9), max, due, answered: ok };
}
