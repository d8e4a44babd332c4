// Sign in to a running Legwork with a fresh ed25519 wallet, over HTTP then over the WebSocket.
// Usage: node scripts/sign-in-example.js [http://127.0.0.1:3000]
const { generateKeyPairSync, sign } = require('node:crypto');
const bs58 = require('bs58').default;
const WebSocket = require('ws');

const base = process.argv[2] ?? 'http://127.0.0.1:3000';

async function main() {
  // 1. A wallet: the 32-byte ed25519 public key, base58.
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const wallet = bs58.encode(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));

  // 2. A nonce, with the exact text to sign.
  const post = (path, body) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const challenge = await post('/v1/auth/nonce', { wallet });
  console.log('message to sign:\n' + challenge.message);

  // 3. Sign the message's UTF-8 bytes; send the signature as base58.
  const signature = bs58.encode(sign(null, Buffer.from(challenge.message, 'utf8'), privateKey));
  const session = await post('/v1/auth/session', { wallet, message: challenge.message, signature });
  console.log('HTTP session:', session);

  // 4. The same over JSON-RPC on /client, then resume with the token on a new connection.
  const ws = new WebSocket(base.replace(/^http/, 'ws') + '/client');
  await new Promise((resolve) => ws.once('open', resolve));
  let id = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      const myId = ++id;
      const onMessage = (data) => {
        const reply = JSON.parse(data.toString());
        if (reply.id === myId) {
          ws.off('message', onMessage);
          resolve(reply);
        }
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: myId, method, params }));
    });
  const nonce = (await call('public/get_nonce', { wallet })).result;
  const auth = await call('public/auth', { wallet, message: nonce.message, signature: bs58.encode(sign(null, Buffer.from(nonce.message), privateKey)) });
  console.log('JSON-RPC public/auth:', auth.result);
  console.log('public/session_resume:', (await call('public/session_resume', { session_token: session.session_token })).result);
  ws.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
