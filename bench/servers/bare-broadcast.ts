import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';

/**
 * Baseline of F10: a bare `ws` server (Legwork's gateway options: 64 KiB frames, no compression).
 * After the IPC message `frame` `{ text }` (a `created` notification captured from Legwork), a
 * request whose method is `broadcast` sends that frame to every other connection, the same string
 * to each, then replies to the caller: what a gateway that serializes a frame once and writes it
 * to N sockets costs.
 */
let frame = '';
const server = createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
const wss = new WebSocketServer({ server, path: '/client', maxPayload: 64 * 1024, perMessageDeflate: false });
wss.on('connection', (socket) => {
  socket.on('message', (data) => {
    const request = JSON.parse(data.toString()) as { id?: unknown; method?: string };
    if (request.method === 'broadcast') {
      for (const client of wss.clients) if (client !== socket) client.send(frame);
    }
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result: {} }));
  });
  socket.on('error', () => undefined);
});

process.on('message', (m: { type: string; text?: string }) => {
  if (m.type === 'frame') {
    frame = String(m.text);
    process.send?.({ type: 'frame' });
  } else process.send?.({ type: m.type, error: `unknown request ${m.type}` });
});
process.on('SIGTERM', () => {
  for (const c of wss.clients) c.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
