// A flooding client in its own process (the e2e process is also the server: a flooder inside it
// would measure its own CPU, not the server's). argv: ws url, X-Forwarded-For, frames, wallet.
// Sends every frame pipelined (no wait for replies), then prints the count of each reply code.
const WebSocket = require('ws');
const { randomBytes } = require('node:crypto');
const [url, ip, count, wallet] = process.argv.slice(2);
const total = Number(count);
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
  for (let sent = 0; sent < total;) {
    for (const end = Math.min(total, sent + 500); sent < end; sent++) {
      const message = `Sign in to Legwork\n\nWallet: ${wallet}\nNonce: ${randomBytes(16).toString('hex')}`;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: sent + 1, method: 'public/auth', params: { wallet, message, signature: '1'.repeat(87) } }));
    }
    await new Promise((r) => setImmediate(r));
  }
});
