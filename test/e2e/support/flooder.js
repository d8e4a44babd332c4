// A flooding client in its own process (the e2e process is also the server: a flooder inside it
// would measure its own CPU, not the server's). argv: ws url, X-Forwarded-For, frames, wallet.
// Sends every frame pipelined (no wait for replies), then prints the count of each reply code.
const WebSocket = require('ws');
const { randomBytes } = require('node:crypto');
const [url, ip, count, wallet] = process.argv.slice(2);
const total = Number(count);
// Every frame is made and masked before the socket opens, and sent in writes of 500: the flood's
// window then costs this process little more than reading the replies, as a flood from another
// machine would (this one shares the server's cores).
const BATCH = 500;
const batches = [];
for (let first = 0; first < total; first += BATCH) {
  const parts = [];
  for (let i = first; i < Math.min(total, first + BATCH); i++) {
    const message = `Sign in to Legwork\n\nWallet: ${wallet}\nNonce: ${randomBytes(16).toString('hex')}`;
    const text = JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'public/auth', params: { wallet, message, signature: '1'.repeat(87) } });
    parts.push(...WebSocket.Sender.frame(Buffer.from(text), { fin: true, rsv1: false, opcode: 1, mask: true, readOnly: false }));
  }
  batches.push(Buffer.concat(parts));
}
const socket = new WebSocket(url, { headers: { 'x-forwarded-for': ip } });
const codes = {};
let answered = 0;
const done = () => {
  process.stdout.write(JSON.stringify({ answered, codes, closeCode: socket.readyState === WebSocket.OPEN ? null : closeCode }) + '\n');
  process.exit(0);
};
let closeCode = null;
socket.on('message', (data) => {
  const code = Number(/"code":(-?\d+)/.exec(data.toString())?.[1] ?? 0);
  codes[code] = (codes[code] ?? 0) + 1;
  if (++answered === total) done();
});
socket.on('close', (code) => {
  closeCode = code;
  done();
});
socket.on('open', async () => {
  process.stdout.write('open\n');
  // Straight to the TCP socket: ws sends nothing else on it meanwhile.
  for (const batch of batches) {
    socket._socket.write(batch);
    await new Promise((r) => setImmediate(r));
  }
});
