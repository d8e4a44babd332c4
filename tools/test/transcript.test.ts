// node:test over `cli verify-transcript` (a process, as a desk runs it): `npm run test:tools`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

// dist-tools/test → the repository's copy of the contract's vectors.
const vectors = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'vectors', 'transcripts.json'), 'utf8'));
const signedOf = (c: any) => ({ transcript: c.transcript, payload: c.payload_base64, hash: c.hash, key_id: c.key_id, signature: c.signature });

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(__dirname, '..', 'src', 'cli.js'), ...args],
      { env: { ...process.env, LEGWORK_URL: '', LEGWORK_SEED: '', LEGWORK_TOKEN: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('cli verify-transcript FILE', () => {
  let dir: string;
  let server: Server;
  let url: string;
  const file = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value, null, 2));
    return path;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legwork-transcript-'));
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/exchange/keys') res.end(JSON.stringify({ keys: [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }] }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies each vector with --key, and prints the quotes with their ends and the accept', async () => {
    for (const [i, c] of vectors.cases.entries()) {
      const out = await cli(['verify-transcript', file(`t${i}.json`, signedOf(c)), '--key', vectors.exchange_public_key]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`^transcript verified: hash ${c.hash}, signed by exchange key ${vectors.key_id} \\(--key\\)`));
      assert.match(out.stdout, new RegExp(`rfq ${c.transcript.rfq_id}`));
      for (const q of c.transcript.quotes) assert.match(out.stdout, new RegExp(`${q.quote_id.slice(0, 8)}… .* ${q.end}\\n`));
      assert.match(out.stdout, c.transcript.accepted ? /accepted d0140648…: buy at 40\.95 .*, the best price on its side/ : /no accept/);
    }
  });

  it("takes the key from LEGWORK_URL's /v1/exchange/keys, and a JSON-RPC reply holding the result", async () => {
    const out = await cli(['verify-transcript', file('reply.json', { jsonrpc: '2.0', id: 1, result: signedOf(vectors.cases[0]) }), '--json'], {
      LEGWORK_URL: url,
    });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).ok, true);
  });

  it('exits 1 naming the failed check: a changed price, another key, a wrong signature', async () => {
    const c = vectors.cases[0];
    const cheaper = structuredClone(c.transcript);
    cheaper.accepted.price = '40';
    const changed = await cli(['verify-transcript', file('changed.json', { ...signedOf(c), transcript: cheaper })], { LEGWORK_URL: url });
    assert.equal(changed.code, 1);
    assert.match(changed.stdout, /transcript NOT VERIFIED \(payload\): payload is not the canonical JSON of the transcript/);
    const otherKey = await cli(['verify-transcript', file('ok.json', signedOf(c)), '--key', '11111111111111111111111111111112']);
    assert.equal(otherKey.code, 1);
    assert.match(otherKey.stdout, /NOT VERIFIED \(key_id\)/);
    const badSignature = await cli([
      'verify-transcript',
      file('sig.json', { ...signedOf(c), signature: vectors.cases[1].signature }),
      '--key',
      vectors.exchange_public_key,
    ]);
    assert.equal(badSignature.code, 1);
    assert.match(badSignature.stdout, /NOT VERIFIED \(signature\)/);
  });

  it('refuses without a key or a URL (usage, exit 2), and a file that is not a transcript (exit 1)', async () => {
    const noKey = await cli(['verify-transcript', file('k.json', signedOf(vectors.cases[0]))]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /needs the exchange key/);
    const notOne = await cli(['verify-transcript', file('x.json', { hello: 1 }), '--key', vectors.exchange_public_key]);
    assert.equal(notOne.code, 1);
    assert.match(notOne.stderr, /not an rfq.transcript result/);
  });
});
