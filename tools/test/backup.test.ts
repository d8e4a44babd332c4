// node:test over the CLI's backup and restore: arguments and refusals (`npm run test:tools`).
// The whole round trip through a running exchange is test/e2e/backup-embedded.e2e-spec.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { UsageError, parseArgs } from '../src/common';
import { Refusal, backupCommand, restoreCommand } from '../src/backup';

const FLAGS = { url: 'string', token: 'string', out: 'string', in: 'string', 'data-dir': 'string', 'admin-token': 'string', 'signing-key': 'string' } as const;
const flagsOf = (...argv: string[]) => parseArgs(argv, FLAGS);

const work = mkdtempSync(join(tmpdir(), 'legwork-backup-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));
const path = (name: string) => join(work, name);

/** A gzipped tar of the given files, made by the system's tar. */
function tarGz(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(work, 'tar-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return gzipSync(execFileSync('tar', ['--format=ustar', '-cf', '-', '-C', dir, ...Object.keys(files)]));
}

async function refused(run: Promise<unknown>, kind: typeof Refusal | typeof UsageError, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (error: Error) => error instanceof kind && pattern.test(error.message));
}

describe('restore: arguments and refusals', () => {
  it('needs --in and --data-dir, and takes no positional argument', async () => {
    await refused(restoreCommand(flagsOf('--data-dir', path('d')).flags, []), UsageError, /restore needs --in FILE/);
    await refused(restoreCommand(flagsOf('--in', path('f')).flags, []), UsageError, /restore needs --data-dir DIR/);
    await refused(restoreCommand(flagsOf('--in', path('f'), '--data-dir', path('d')).flags, ['extra']), UsageError, /unexpected argument extra/);
  });

  it('refuses a DATA_DIR that is not empty, and leaves it untouched', async () => {
    const dir = path('busy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    writeFileSync(path('any.backup'), tarGz({ PG_VERSION: '17\n', 'global/pg_control': 'x' }));
    await refused(restoreCommand(flagsOf('--in', path('any.backup'), '--data-dir', dir).flags, []), Refusal, /is not an empty directory/);
    assert.deepEqual(readdirSync(dir), ['PG_VERSION']);
    writeFileSync(path('a-file'), 'x');
    await refused(restoreCommand(flagsOf('--in', path('any.backup'), '--data-dir', path('a-file')).flags, []), Refusal, /is not an empty directory/);
  });

  it('refuses a missing, corrupt, truncated or foreign file, and leaves no DATA_DIR behind', async () => {
    const good = tarGz({ PG_VERSION: '17\n', 'global/pg_control': 'x'.repeat(3000) });
    const cases: Array<[string, Buffer | null, RegExp]> = [
      ['missing.backup', null, /does not exist/],
      ['random.backup', Buffer.from('not a backup at all'), /not a Legwork backup, or it is corrupt or truncated/],
      ['truncated.backup', good.subarray(0, good.length - 20), /not a Legwork backup, or it is corrupt or truncated/],
      ['flipped.backup', Buffer.from(good.map((b, i) => (i === good.length - 12 ? b ^ 0xff : b))), /corrupt or truncated/],
      ['other.tar.gz', tarGz({ 'notes.txt': 'hello' }), /not a Legwork backup: no embedded database data directory in it/],
      ['not-a-tar.gz', gzipSync(Buffer.from('x'.repeat(2048))), /not a Legwork backup: no embedded database data directory/],
    ];
    for (const [name, bytes, pattern] of cases) {
      if (bytes) writeFileSync(path(name), bytes);
      const dir = path(`restored-${name}`);
      await refused(restoreCommand(flagsOf('--in', path(name), '--data-dir', dir).flags, []), Refusal, pattern);
      assert.equal(existsSync(dir), false, `${name}: no directory created`);
    }
  });

  it('refuses a signing key file that is not 64 hex characters before writing anything', async () => {
    writeFileSync(path('bad-key'), 'not hex\n');
    writeFileSync(path('ok.backup'), tarGz({ PG_VERSION: '17\n', 'global/pg_control': 'x' }));
    const dir = path('keyless');
    await refused(restoreCommand(flagsOf('--in', path('ok.backup'), '--data-dir', dir, '--signing-key', path('bad-key')).flags, []), Refusal, /not 64 hex/);
    assert.equal(existsSync(dir), false);
    await refused(
      restoreCommand(flagsOf('--in', path('ok.backup'), '--data-dir', dir, '--signing-key', path('no-key')).flags, []),
      Refusal,
      /no-key does not exist/,
    );
    assert.equal(existsSync(dir), false);
  });
});

/** A stand-in for the exchange's backup route, for one describe block: answers `reply`, records each request in `seen`. */
function fakeBackupRoute() {
  const state = {
    url: '',
    reply: { status: 200, body: Buffer.alloc(0) } as { status: number; body: Buffer; sha?: string },
    seen: [] as Array<{ method?: string; url?: string; authorization?: string }>,
  };
  let server: Server;
  before(async () => {
    server = createServer((req, res) => {
      state.seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
      const headers: Record<string, string> = { 'content-type': state.reply.status === 200 ? 'application/gzip' : 'application/json' };
      if (state.reply.sha) headers['x-backup-sha256'] = state.reply.sha;
      headers['x-backup-paused-ms'] = '12';
      res.writeHead(state.reply.status, headers).end(state.reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());
  return state;
}

describe('backup: arguments, refusals and the file', () => {
  const route = fakeBackupRoute();

  it('needs --out and an admin credential, and never overwrites a file', async () => {
    await refused(backupCommand(flagsOf('--admin-token', 't').flags, []), UsageError, /backup needs --out FILE/);
    const saved = process.env.LEGWORK_ADMIN_TOKEN;
    const savedSession = process.env.LEGWORK_TOKEN;
    delete process.env.LEGWORK_ADMIN_TOKEN;
    delete process.env.LEGWORK_TOKEN;
    try {
      await refused(backupCommand(flagsOf('--out', path('x.backup')).flags, []), UsageError, /backup is an admin command/);
    } finally {
      if (saved !== undefined) process.env.LEGWORK_ADMIN_TOKEN = saved;
      if (savedSession !== undefined) process.env.LEGWORK_TOKEN = savedSession;
    }
    writeFileSync(path('exists.backup'), 'old');
    await refused(
      backupCommand(flagsOf('--url', route.url, '--admin-token', 't', '--out', path('exists.backup')).flags, []),
      Refusal,
      /exists: a backup never overwrites/,
    );
    assert.equal(readFileSync(path('exists.backup'), 'utf8'), 'old');
  });

  it('writes the file the exchange sends (POST with the admin token), mode 0600, checked against its SHA-256', async () => {
    const body = Buffer.from('the backup bytes'.repeat(1000));
    route.reply = { status: 200, body, sha: createHash('sha256').update(body).digest('hex') };
    const out = await backupCommand(flagsOf('--url', route.url, '--admin-token', 'secret-token', '--out', path('ok.out')).flags, []);
    assert.equal(out.code, 0);
    assert.deepEqual(route.seen.at(-1), { method: 'POST', url: '/v1/admin/backup', authorization: 'Bearer secret-token' });
    assert.deepEqual(readFileSync(path('ok.out')), body);
    assert.equal(statSync(path('ok.out')).mode & 0o777, 0o600);
    assert.deepEqual(out.json, { file: path('ok.out'), bytes: body.length, sha256: route.reply.sha, paused_ms: 12 });
    assert.equal(existsSync(path('ok.out.partial')), false);
  });

  it('keeps nothing when the body does not match the checksum, or the exchange refuses', async () => {
    route.reply = { status: 200, body: Buffer.from('damaged in transit'), sha: 'a'.repeat(64) };
    await refused(
      backupCommand(flagsOf('--url', route.url, '--admin-token', 't', '--out', path('bad.out')).flags, []),
      Refusal,
      /does not match the exchange's checksum/,
    );
    assert.equal(existsSync(path('bad.out')), false);
    assert.equal(existsSync(path('bad.out.partial')), false);

    route.reply = { status: 409, body: Buffer.from(JSON.stringify({ error: 'this exchange runs on PostgreSQL: back it up with pg_dump' })) };
    await refused(
      backupCommand(flagsOf('--url', route.url, '--admin-token', 't', '--out', path('pg.out')).flags, []),
      Refusal,
      /refused the backup: HTTP 409: this exchange runs on PostgreSQL/,
    );
    assert.equal(existsSync(path('pg.out')), false);
  });
});

describe('the commands on the command line', () => {
  const cli = (...args: string[]) => {
    try {
      execFileSync(process.execPath, [join(__dirname, '..', 'src', 'cli.js'), ...args], { stdio: 'pipe', env: { ...process.env, LEGWORK_ADMIN_TOKEN: '' } });
      return { code: 0, err: '' };
    } catch (error: any) {
      return { code: error.status as number, err: String(error.stderr) };
    }
  };

  it('exits 2 with the usage on a usage mistake, 1 with the reason on a refusal', () => {
    const usage = cli('restore', '--in', path('x'));
    assert.equal(usage.code, 2);
    assert.match(usage.err, /^restore needs --data-dir DIR\n\nusage: npm run -s cli -- <command>/);
    assert.match(usage.err, /restore --in FILE --data-dir DIR/);
    assert.equal(cli('backup', '--out', path('y'), '--bogus').code, 2);
    writeFileSync(path('junk'), 'junk');
    const refusal = cli('restore', '--in', path('junk'), '--data-dir', path('never'));
    assert.equal(refusal.code, 1);
    assert.match(refusal.err, /^refused: .*junk is not a Legwork backup/);
    assert.equal(existsSync(path('never')), false);
  });
});
