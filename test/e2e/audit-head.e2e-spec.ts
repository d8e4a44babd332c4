import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SignedAuditHead, parseWallet, verifyAuditAgainstHead, verifyAuditHeadSignature } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { Http } from './clients';
import { createAccount } from './factories';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { ROOT, cli, execAsync } from './support/backup';
import { scratchDir } from './support/scratch-dir';

/**
 * docs/spec/design.md section 20, "The audit log is anchored": after each append the exchange signs
 * the head; `GET /v1/admin/audit` answers it; `cli verify-audit --head FILE` checks the chain
 * against a head saved earlier. The attack first (a cut tail): delete the newest row and move
 * audit_head back; the chain alone still verifies, against the saved head it does not.
 */
let env: Environment;
let app: TestApp;
let admin: Http;
const dir = scratchDir('legwork-audit-head-');

beforeAll(async () => {
  // The CLI as `npm run cli` builds it; `npm test` built it before its jest workers started
  // (LEGWORK_PREBUILT=1), and a rebuild that finds nothing to do still took 10 to 20 s.
  if (process.env.LEGWORK_PREBUILT !== '1') await execAsync('npm', ['run', '-s', 'tools:build'], { cwd: ROOT, timeout: 240_000 });
  env = await Environment.create();
  app = await env.start();
  admin = new Http(app.url).admin();
}, 300_000);
afterAll(async () => {
  await app?.close();
  await env?.destroy();
});

const page = async () => {
  const res = await admin.get('/v1/admin/audit?limit=200');
  if (res.status !== 200) throw new Error(JSON.stringify(res));
  return res.body;
};
const verify = (file: string) => cli(['verify-audit', '--head', file, '--url', app.url, '--admin-token', ADMIN_TOKEN]);
const save = (name: string, head: SignedAuditHead) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ head }));
  return file;
};

describe('the audit log is anchored (design.md section 20)', () => {
  it('the attack: the newest row deleted and audit_head moved back verifies alone, but not against the saved head', async () => {
    for (let i = 0; i < 3; i++) await createAccount(app, ['taker']);
    const before = await page();
    const head: SignedAuditHead = before.head;
    // Signed by the exchange key: UTF-8 of canonical { kind, service, audit_seq, hash, at }.
    expect(head).toMatchObject({ audit_seq: before.rows[0].audit_seq, hash: before.rows[0].hash, at: before.rows[0].at, key_id: expect.any(String) });
    const { keys } = (await new Http(app.url).get('/v1/exchange/keys')).body;
    const key = keys.find((k: any) => k.key_id === head.key_id);
    expect(verifyAuditHeadSignature('Legwork', head, parseWallet(key.public_key))).toBe(true);
    expect(verifyAuditHeadSignature('Legwork', { ...head, audit_seq: head.audit_seq - 1 }, parseWallet(key.public_key))).toBe(false);
    const file = save('head.json', head);
    expect(await verify(file)).toMatchObject({ code: 0, out: expect.stringContaining(`audit ok`) });

    // The attacker who can write the database cuts the tail.
    const db = app.app.get(Database);
    const previous = before.rows[1];
    await db.exec('DELETE FROM audit_log WHERE audit_seq = $1', [head.audit_seq]);
    await db.exec('UPDATE audit_head SET audit_seq = $1, hash = $2 WHERE id = 1', [previous.audit_seq, previous.hash]);
    const cut = await page();
    expect(verifyAuditAgainstHead(cut.rows, { ...head }).ok).toBe(false);
    const refused = await verify(file);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/audit BROKEN .*cut/);

    // A new append after the cut reaches the saved audit_seq again, with another hash: rewritten.
    await createAccount(app, ['taker']);
    const rewritten = await verify(file);
    expect(rewritten.code).toBe(1);
    expect(rewritten.out).toMatch(/rewritten/);
    // The new head is signed like the old one, and the chain verifies against it.
    expect(await verify(save('new-head.json', (await page()).head))).toMatchObject({ code: 0 });
  }, 120_000);

  it('a forged saved head (not the exchange signature) is refused', async () => {
    const head = (await page()).head;
    const forged = save('forged.json', { ...head, signature: '00'.repeat(64) });
    expect(await verify(forged)).toMatchObject({ code: 1, out: expect.stringMatching(/not signed by the exchange key/) });
  });
});
