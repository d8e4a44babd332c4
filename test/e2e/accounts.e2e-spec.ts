import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { SMALL_ORDER_PUBLIC_KEYS_HEX } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { Http, TestWallet } from './clients';
import { createAccount, signInHttp } from './factories';
import { Environment, type TestApp } from './harness';

const FEE_WALLET = '11111111111111111111111111111111';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let refSeq = 0;
const ref = (label = 'ref') => `${label}-${process.pid}-${++refSeq}-${randomUUID()}`;

describe('admin accounts, deposits and withdrawals', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let anon: Http;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    anon = new Http(app.url);
    admin = anon.admin();
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  const deposit = (accountId: number | string, amount: unknown, reference: unknown, as = admin) =>
    as.post(`/v1/admin/accounts/${accountId}/deposit`, { amount, reference });
  const withdraw = (accountId: number | string, amount: unknown, reference: unknown, as = admin) =>
    as.post(`/v1/admin/accounts/${accountId}/withdraw`, { amount, reference });
  const balanceOf = async (accountId: number) => (await admin.get(`/v1/admin/accounts/${accountId}`)).body.balance;

  describe('accounts', () => {
    it('creates an account: 201 with account_id, wallet, roles, created_at', async () => {
      const wallet = new TestWallet();
      const res = await admin.post('/v1/admin/accounts', { wallet: wallet.address, roles: ['taker', 'quoter'] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        account_id: expect.any(Number),
        wallet: wallet.address,
        roles: ['taker', 'quoter'],
        created_at: expect.stringMatching(ISO_UTC),
      });
      expect(res.body.account_id).toBeGreaterThan(0);
    });

    it('creates an account with no role when roles is left out', async () => {
      const res = await admin.post('/v1/admin/accounts', { wallet: new TestWallet().address });
      expect(res.status).toBe(201);
      expect(res.body.roles).toEqual([]);
    });

    it('refuses a second account for a wallet: 409', async () => {
      const { wallet } = await createAccount(app);
      const res = await admin.post('/v1/admin/accounts', { wallet: wallet.address, roles: ['quoter'] });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it.each([
      ['not base58', 'not-a-wallet!'],
      ['31 bytes', bs58.encode(new Uint8Array(31).fill(7))],
      ['33 bytes', bs58.encode(new Uint8Array(33).fill(7))],
      ['not canonical (leading zero byte spelled twice)', '1' + new TestWallet().address],
      ['empty', ''],
      ['a number', 12345],
    ])('refuses a bad wallet (%s): 400', async (_label, wallet) => {
      const res = await admin.post('/v1/admin/accounts', { wallet, roles: [] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it('refuses every small-order wallet, the fee wallet included: 400', async () => {
      for (const hex of SMALL_ORDER_PUBLIC_KEYS_HEX) {
        const res = await admin.post('/v1/admin/accounts', { wallet: bs58.encode(Buffer.from(hex, 'hex')), roles: [] });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/small order/);
      }
      expect((await admin.post('/v1/admin/accounts', { wallet: FEE_WALLET })).status).toBe(400);
    });

    it.each([
      ['unknown role', { roles: ['trader'] }],
      ['role twice', { roles: ['taker', 'taker'] }],
      ['roles not an array', { roles: 'taker' }],
      ['unknown field', { roles: [], referral: 'x' }],
    ])('refuses %s: 400', async (_label, body) => {
      const res = await admin.post('/v1/admin/accounts', { wallet: new TestWallet().address, ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it('sets roles: the account with its new roles, seen at the next sign-in', async () => {
      const { wallet, accountId } = await createAccount(app, ['taker']);
      const res = await admin.put(`/v1/admin/accounts/${accountId}/roles`, { roles: ['quoter', 'admin'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ account_id: accountId, wallet: wallet.address, roles: ['quoter', 'admin'], created_at: expect.stringMatching(ISO_UTC) });
      expect((await signInHttp(app, wallet)).accountId).toBe(accountId);
      const read = await admin.get(`/v1/admin/accounts/${accountId}`);
      expect(read.body.roles).toEqual(['quoter', 'admin']);
      expect((await admin.put(`/v1/admin/accounts/${accountId}/roles`, { roles: [] })).body.roles).toEqual([]);
    });

    it('refuses bad roles updates: 400, unknown account: 404', async () => {
      const { accountId } = await createAccount(app);
      expect((await admin.put(`/v1/admin/accounts/${accountId}/roles`, { roles: ['root'] })).status).toBe(400);
      expect((await admin.put(`/v1/admin/accounts/${accountId}/roles`, {})).status).toBe(400);
      expect((await admin.put(`/v1/admin/accounts/${accountId}/roles`, { roles: [], wallet: 'x' })).status).toBe(400);
      const missing = await admin.put('/v1/admin/accounts/987654321/roles', { roles: ['taker'] });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: expect.any(String) });
    });

    it('reads an account: the account, anchored, and its balance row (zero before the first deposit)', async () => {
      const { wallet, accountId } = await createAccount(app, ['taker']);
      const res = await admin.get(`/v1/admin/accounts/${accountId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        account_id: accountId,
        wallet: wallet.address,
        roles: ['taker'],
        created_at: expect.stringMatching(ISO_UTC),
        anchored: false,
        balance: {
          account_id: accountId,
          currency: 'USDC',
          available: '0.00000000',
          locked: '0.00000000',
          total: '0.00000000',
          updated_at: res.body.created_at,
        },
      });
      expect((await deposit(accountId, '2.5', ref())).status).toBe(200);
      const after = await admin.get(`/v1/admin/accounts/${accountId}`);
      expect(after.body.anchored).toBe(true);
      expect(after.body.balance).toMatchObject({
        available: '2.50000000',
        total: '2.50000000',
        locked: '0.00000000',
        updated_at: expect.stringMatching(ISO_UTC),
      });
    });

    it.each(['0', '-1', 'abc', '1.5', '01', '1e3', '0x10', '99999999999999999999'])('refuses the path id %j: 400', async (id) => {
      for (const res of [
        await admin.get(`/v1/admin/accounts/${id}`),
        await admin.put(`/v1/admin/accounts/${id}/roles`, { roles: [] }),
        await deposit(id, '1', ref()),
        await withdraw(id, '1', ref()),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'account_id must be a positive integer' });
      }
    });

    it('an unknown account is a 404 on read, deposit and withdrawal', async () => {
      for (const res of [await admin.get('/v1/admin/accounts/987654321'), await deposit(987654321, '1', ref()), await withdraw(987654321, '1', ref())]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('the fee account exists from the first start: wallet of 32 zero bytes, no role, never anchored', async () => {
      // The first account of a fresh database: created at bootstrap, before any request.
      const res = await admin.get('/v1/admin/accounts/1');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ account_id: 1, wallet: FEE_WALLET, roles: [], anchored: false });
      expect(res.body.balance.total).toBe('0.00000000');
      expect((await admin.put('/v1/admin/accounts/1/roles', { roles: ['taker'] })).status).toBe(404);
    });
  });

  describe('deposits and withdrawals', () => {
    it('deposits exactly to the micro-unit; the first deposit anchors the account', async () => {
      const { accountId } = await createAccount(app);
      const reference = ref('dep');
      const res = await deposit(accountId, '0.000001', reference);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        account_id: accountId,
        reference,
        kind: 'deposit',
        amount: '0.00000100',
        balance: {
          account_id: accountId,
          currency: 'USDC',
          available: '0.00000100',
          locked: '0.00000000',
          total: '0.00000100',
          updated_at: expect.stringMatching(ISO_UTC),
        },
      });
      expect((await deposit(accountId, '12.34567800', ref())).body.balance.total).toBe('12.34567900');
      expect((await deposit(accountId, '9007199254.740993', ref())).body.balance.total).toBe('9007199267.08667200');
      expect((await withdraw(accountId, '0.1', ref())).body).toMatchObject({
        kind: 'withdrawal',
        amount: '0.10000000',
        balance: { total: '9007199266.98667200' },
      });
    });

    it.each([
      ['zero', '0'],
      ['zero with 8 dp', '0.00000000'],
      ['negative', '-1'],
      ['below a micro-unit', '1.00000001'],
      ['9 fractional digits', '1.000000000'],
      ['exponent', '1e2'],
      ['leading zero', '01'],
      ['a JSON number', 1],
      ['empty', ''],
      ['null', null],
      ['out of range', '9223372036854.775808'],
    ])('refuses an amount that is %s: 400', async (_label, amount) => {
      const { accountId } = await createAccount(app);
      for (const res of [await deposit(accountId, amount, ref()), await withdraw(accountId, amount, ref())]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      expect((await admin.get(`/v1/admin/accounts/${accountId}`)).body.anchored).toBe(false);
    });

    it('accepts 8 dp when they are representable in micro-units', async () => {
      const { accountId } = await createAccount(app);
      expect((await deposit(accountId, '1.00000000', ref())).body.amount).toBe('1.00000000');
      expect((await deposit(accountId, '0.12345600', ref())).body.balance.total).toBe('1.12345600');
    });

    it('refuses a bad reference or body: 400', async () => {
      const { accountId } = await createAccount(app);
      for (const body of [
        { amount: '1' },
        { amount: '1', reference: '' },
        { amount: '1', reference: 'x'.repeat(129) },
        { amount: '1', reference: 5 },
        { amount: '1', reference: 'r', memo: 'x' },
      ]) {
        const res = await admin.post(`/v1/admin/accounts/${accountId}/deposit`, body);
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      }
      expect((await deposit(accountId, '1', 'x'.repeat(128))).status).toBe(200);
    });

    it('a repeated deposit (same account, kind, amount) returns the result without moving money again', async () => {
      const { accountId } = await createAccount(app);
      const reference = ref('idem');
      const first = await deposit(accountId, '5', reference);
      expect(first.status).toBe(200);
      const again = await deposit(accountId, '5.00000000', reference);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect((await balanceOf(accountId)).total).toBe('5.00000000');
    });

    it('a reference reused for another account, kind or amount: 409, nothing moves', async () => {
      const { accountId } = await createAccount(app);
      const other = await createAccount(app);
      const reference = ref('reuse');
      expect((await deposit(accountId, '5', reference)).status).toBe(200);
      for (const res of [await deposit(accountId, '6', reference), await deposit(other.accountId, '5', reference), await withdraw(accountId, '5', reference)]) {
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ error: expect.stringMatching(/reference/) });
      }
      expect((await balanceOf(accountId)).total).toBe('5.00000000');
      expect(await admin.get(`/v1/admin/accounts/${other.accountId}`)).toMatchObject({ body: { anchored: false, balance: { total: '0.00000000' } } });
    });

    it('a withdrawal may take the free balance to zero, not below: 409', async () => {
      const { accountId } = await createAccount(app);
      expect((await deposit(accountId, '10', ref())).status).toBe(200);
      const over = await withdraw(accountId, '10.000001', ref());
      expect(over.status).toBe(409);
      expect(over.body).toEqual({ error: expect.stringMatching(/insufficient free balance/) });
      const reference = ref('wd');
      const all = await withdraw(accountId, '10', reference);
      expect(all.status).toBe(200);
      expect(all.body.balance).toMatchObject({ available: '0.00000000', total: '0.00000000' });
      // A repeat is the same withdrawal, not a second one (and not an overdraw).
      expect(await withdraw(accountId, '10', reference)).toMatchObject({ status: 200, body: { kind: 'withdrawal', amount: '10.00000000' } });
      expect((await withdraw(accountId, '0.000001', ref())).status).toBe(409);
    });

    it('a refused withdrawal does not use up its reference', async () => {
      const { accountId } = await createAccount(app);
      const reference = ref('later');
      expect((await withdraw(accountId, '1', reference)).status).toBe(409);
      expect((await deposit(accountId, '1', ref())).status).toBe(200);
      expect((await withdraw(accountId, '1', reference)).status).toBe(200);
    });

    it('a withdrawal from an account never deposited to is refused and does not anchor it', async () => {
      const { accountId } = await createAccount(app);
      expect((await withdraw(accountId, '0.000001', ref())).status).toBe(409);
      expect((await admin.get(`/v1/admin/accounts/${accountId}`)).body.anchored).toBe(false);
    });

    it('a withdrawal counts only the free balance: total - locked', async () => {
      const { accountId } = await createAccount(app);
      expect((await deposit(accountId, '10', ref())).status).toBe(200);
      await app.app.get(Database).exec(`UPDATE balances SET locked = 4000000 WHERE account_id = $1`, [accountId]);
      expect(await balanceOf(accountId)).toMatchObject({ available: '6.00000000', locked: '4.00000000', total: '10.00000000' });
      expect((await withdraw(accountId, '6.000001', ref())).status).toBe(409);
      expect((await withdraw(accountId, '6', ref())).body.balance).toMatchObject({ available: '0.00000000', locked: '4.00000000', total: '4.00000000' });
    });

    it('10 concurrent identical deposits apply once', async () => {
      const { accountId } = await createAccount(app);
      const reference = ref('race');
      const results = await Promise.all(Array.from({ length: 10 }, () => deposit(accountId, '7.5', reference)));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      for (const r of results) expect(r.body).toMatchObject({ account_id: accountId, reference, kind: 'deposit', amount: '7.50000000' });
      expect((await balanceOf(accountId)).total).toBe('7.50000000');
    });

    it('10 concurrent deposits with the same reference to different accounts: one applies, the others are 409', async () => {
      const accounts = await Promise.all(Array.from({ length: 10 }, () => createAccount(app)));
      const reference = ref('race-accounts');
      const results = await Promise.all(accounts.map((a) => deposit(a.accountId, '1', reference)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
      const anchored = await Promise.all(accounts.map(async (a) => (await admin.get(`/v1/admin/accounts/${a.accountId}`)).body.anchored));
      expect(anchored.filter(Boolean)).toHaveLength(1);
    });

    it('concurrent distinct deposits and withdrawals on one account add up exactly', async () => {
      const { accountId } = await createAccount(app);
      expect((await deposit(accountId, '100', ref())).status).toBe(200);
      const calls = [
        ...Array.from({ length: 10 }, (_, i) => deposit(accountId, `0.0000${i}1`, ref())),
        ...Array.from({ length: 10 }, () => withdraw(accountId, '1.000001', ref())),
      ];
      const results = await Promise.all(calls);
      expect(results.every((r) => r.status === 200)).toBe(true);
      // 100 + sum(0.000001 + i * 0.00001) - 10 * 1.000001
      expect((await balanceOf(accountId)).total).toBe('90.00045000');
    });

    it('the fee account takes deposits and withdrawals like any account', async () => {
      expect((await deposit(1, '1', ref())).status).toBe(200);
      expect((await withdraw(1, '1', ref())).body.balance.total).toBe('0.00000000');
    });
  });
});
