// node:test over the CLI's competitive RFQs (docs/spec/design.md 18) as a process against a fake
// exchange: `rfq create --compete`, `rfq quotes`, `makers` and `rfq transcript --verify`.
// `npm run test:tools`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeExchange, SYMBOL } from './fake-exchange';

const vectors = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'vectors', 'transcripts.json'), 'utf8'));
const SIGNED = (({ transcript, payload_base64, hash, key_id, signature }: any) => ({ transcript, payload: payload_base64, hash, key_id, signature }))(
  vectors.cases[0],
);
const KEY = { key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 };
const PANEL = ['3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx', 'AqVptoBYaJFhzAm3W1NdAg8pEeacvLszUBAiuztzDsKS'];
const RFQ_ID = 'c'.repeat(32);
const now = Math.floor(Date.now() / 1000);

const quote = (n: number, bid: string, ask: string) => ({
  quote_id: String(n).repeat(64),
  maker: PANEL[n % 2],
  quote_nonce: String(n),
  bid,
  ask,
  issued_at: now,
  expires_at: now + 60,
  maker_signature: 'c2ln',
  received_at_ms: now * 1000 + n,
});
/** The best bid is quote 2's, the best ask quote 3's. */
const QUOTES = [quote(1, '40.1', '41.2'), quote(2, '40.25', '41.05'), quote(3, '40.2', '40.95')];

function view(quotes: ReturnType<typeof quote>[], makers: string[] | null = null) {
  const best = (side: 'bid' | 'ask') =>
    quotes.length === 0
      ? null
      : quotes.reduce((a, b) => (side === 'bid' ? (Number(b.bid) > Number(a.bid) ? b : a) : Number(b.ask) < Number(a.ask) ? b : a)).quote_id;
  return {
    rfq_id: RFQ_ID,
    client_ref: '6b2f1c1e-8f9a-4c43-9d67-0a4c3bd2f6a1',
    state: quotes.length ? 'quoted' : 'pending',
    legs: [{ instrument: SYMBOL, quantity: '10' }],
    created_at: now,
    updated_at: now,
    expires_at: now + 120,
    max_quote_expires_at: now + 3600,
    quote: null,
    accepted_side: null,
    decline_reason: null,
    failure: null,
    fill: null,
    cancelled_at: null,
    competition: { makers },
    quotes,
    best: { bid: best('bid'), ask: best('ask') },
  };
}

function cli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(__dirname, '..', 'src', 'cli.js'), ...args, '--no-cache'],
      { env: { ...process.env, LEGWORK_URL: url, LEGWORK_TOKEN: 'tok', LEGWORK_SEED: '' } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('cli: competitive RFQs (against a fake exchange)', () => {
  let exchange: FakeExchange;
  before(async () => {
    exchange = await FakeExchange.start();
    exchange.handlers['rfq.get'] = () => ({ result: view(QUOTES) });
    exchange.handlers['rfq.subscribe'] = () => ({ result: { channel: 'rfq', subscribed: true, account_seq: 0 } });
  });
  after(() => exchange.stop());

  it('rfq quotes marks the best bid and ask, and says how to take each', async () => {
    const out = await cli(exchange.url, ['rfq', 'quotes', RFQ_ID]);
    assert.equal(out.code, 0, out.stderr);
    const row = (q: { quote_id: string }) => out.stdout.split('\n').find((l) => l.startsWith(q.quote_id)) ?? '';
    assert.match(row(QUOTES[1]), / 40\.25 \* /);
    assert.match(row(QUOTES[2]), / 40\.95 \*/);
    assert.doesNotMatch(row(QUOTES[0]), /\*/);
    assert.match(out.stdout, new RegExp(`buy: {2}npm run -s cli -- accept ${QUOTES[2].quote_id} --side buy .*best ask: you pay 40\\.95 USDC`));
    assert.match(out.stdout, new RegExp(`sell: npm run -s cli -- accept ${QUOTES[1].quote_id} --side sell .*best bid: you receive 40\\.25 USDC`));
  });

  it('rfq create --compete --maker sends the panel, waits for the quotes and shows them', async () => {
    exchange.handlers['rfq.create'] = (params) => ({ result: { ...view([], params.competition.makers), client_ref: params.client_ref } });
    const running = cli(exchange.url, ['rfq', 'create', '--leg', `${SYMBOL}:10`, '--compete', '--maker', PANEL[0], '--maker', PANEL[1], '--wait', '5']);
    await exchange.until(() => exchange.methods().includes('rfq.create'));
    const created = exchange.calls.find((c) => c.method === 'rfq.create')!;
    assert.deepEqual(created.params.competition, { makers: PANEL });
    exchange.notify('rfq', { account_seq: 1, event: 'quotes', rfq: view(QUOTES.slice(0, 1), PANEL) });
    exchange.notify('rfq', { account_seq: 2, event: 'quotes', rfq: view(QUOTES.slice(0, 2), PANEL) });
    const out = await running;
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /waiting up to 5 s for the competing quotes/);
    assert.match(out.stdout, new RegExp(`${QUOTES[1].quote_id} .* 40\\.25 \\* +41\\.05 \\*`));
  });

  it('--maker without --compete is a usage error', async () => {
    const out = await cli(exchange.url, ['rfq', 'create', '--leg', `${SYMBOL}:10`, '--maker', PANEL[0]]);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--maker names a panel of a competitive RFQ: add --compete/);
  });

  it('makers lists the directory with each maker’s stats', async () => {
    const stats = { rfqs: 12, quoted: 10, median_response_ms: 140, cancelled: 1, replaced: 3, won: 4 };
    exchange.handlers['rfq.makers'] = () => ({ result: { makers: [{ wallet: PANEL[0], name: 'Aster (tight)', stats }] } });
    const out = await cli(exchange.url, ['makers']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /wallet +name +rfqs +quoted +median ms +cancelled +replaced +won/);
    assert.match(out.stdout, new RegExp(`${PANEL[0]} +Aster \\(tight\\) +12 +10 +140 +1 +3 +4`));
  });

  it('rfq transcript --verify checks it against the exchange keys: exit 0 when it verifies, 1 when not', async () => {
    exchange.handlers['rfq.transcript'] = () => ({ result: SIGNED });
    exchange.keys = [KEY];
    const ok = await cli(exchange.url, ['rfq', 'transcript', SIGNED.transcript.rfq_id, '--verify']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`^transcript verified: hash ${SIGNED.hash}, signed by exchange key ${KEY.key_id}`));
    assert.match(ok.stdout, /accepted d0140648…: buy at 40\.95/);
    exchange.handlers['rfq.transcript'] = () => ({ result: { ...SIGNED, transcript: { ...SIGNED.transcript, quotes: SIGNED.transcript.quotes.slice(1) } } });
    const tampered = await cli(exchange.url, ['rfq', 'transcript', SIGNED.transcript.rfq_id, '--verify']);
    assert.equal(tampered.code, 1);
    assert.match(tampered.stdout, /transcript NOT VERIFIED \(payload\)/);
    exchange.handlers['rfq.transcript'] = () => ({ result: SIGNED });
    exchange.keys = [];
    const unknownKey = await cli(exchange.url, ['rfq', 'transcript', SIGNED.transcript.rfq_id, '--verify']);
    assert.equal(unknownKey.code, 1);
    assert.match(unknownKey.stdout, /NOT VERIFIED \(key_id\)/);
  });
});
