import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { writeHeapSnapshot } from 'node:v8';
import { WebSocketServer } from 'ws';
import { memoryAfterGc } from './memory';

/**
 * Baseline of F2 and F3: a bare `ws` server on a plain Node HTTP server, path /client, the same
 * options as Legwork's gateway (64 KiB frames, no compression). Every frame is echoed back.
 * Baseline of F9 too: after the IPC message `frames` `{ file }` (JSON array of frame texts), a
 * request whose method is `rfq.subscribe` is answered with those frames, then a reply.
 */
let frames: string[] = [];
const server = createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
const wss = new WebSocketServer({ server, path: '/client', maxPayload: 64 * 1024, perMessageDeflate: false });
wss.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => {
    if (frames.length > 0 && !isBinary) {
      const request = JSON.parse(data.toString()) as { id?: unknown; method?: string };
      if (request.method === 'rfq.subscribe') {
        for (const frame of frames) socket.send(frame);
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { channel: 'rfq', subscribed: true } }));
        return;
      }
    }
    socket.send(data, { binary: isBinary });
  });
  socket.on('error', () => undefined);
});

async function onMessage(m: { type: string }): Promise<void> {
  if (m.type === 'frames') {
    frames = JSON.parse(readFileSync(String((m as { file?: string }).file), 'utf8')) as string[];
    process.send?.({ type: 'frames', count: frames.length });
  } else if (m.type === 'memory') process.send?.({ type: 'memory', memory: await memoryAfterGc(), connections: wss.clients.size });
  else if (m.type === 'heap-snapshot') {
    (global as { gc?: () => void }).gc?.();
    process.send?.({ type: 'heap-snapshot', file: writeHeapSnapshot(String((m as { file?: string }).file)) });
  } else process.send?.({ type: m.type, error: `unknown request ${m.type}` });
}
process.on('message', (m: { type: string }) => void onMessage(m));
process.on('SIGTERM', () => {
  for (const c of wss.clients) c.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
