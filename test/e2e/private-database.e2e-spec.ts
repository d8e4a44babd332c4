import { chmodSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Http } from './clients';
import { createAccount } from './factories';
import { ADMIN_TOKEN, JWT_SECRET, TestApp } from './harness';
import { seedEmbeddedDataDir } from './support/migrated-template';
import { scratchDir } from './support/scratch-dir';

/** Inodes of the sockets this process holds open. */
function socketInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // closed while listing
    }
  }
  return inodes;
}

/** The TCP ports this process listens on, on any interface, IPv4 and IPv6 (what `ss -ltnp` shows for it). */
function listeningPorts(): number[] {
  const mine = socketInodes();
  const ports = new Set<number>();
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st ... inode (10th); st 0A is LISTEN.
      if (cols.length > 9 && cols[3] === '0A' && mine.has(cols[9])) ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Paths of the Unix sockets this process listens on. */
function listeningUnixPaths(): string[] {
  const mine = socketInodes();
  return readFileSync('/proc/self/net/unix', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 8 && cols[5] === '01' && mine.has(cols[6]))
    .map((cols) => cols[7]);
}

/** Tries the PostgreSQL protocol on a local port, as any local user could: true when a query answers. */
async function postgresAnswers(port: number): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Paths under `dir` (itself included) whose mode gives group or others any access. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    if ((stat.mode & 0o077) !== 0) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

/**
 * docs/spec/design.md section 16, "The embedded database is private": the embedded PostgreSQL is
 * reached only from inside the process (no TCP listener on any interface, no Unix socket), and
 * DATA_DIR is the process owner's alone. Embedded whatever the test run's own services.
 */
const root = scratchDir('legwork-private-');
const env = { ADMIN_TOKEN, JWT_SECRET, LOG_LEVEL: 'error' };
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded database is private: no listener', () => {
  it('listens on no port but HTTP: no local user reaches the database over TCP', async () => {
    const dataDir = join(root, 'listen');
    // A copy of the run's migrated database (the start that creates DATA_DIR is the next block's):
    // PGlite's initdb and the migrations from nothing took 3 to 20 s, more than the rest of the file.
    seedEmbeddedDataDir(dataDir);
    const before = listeningPorts();
    const app = await TestApp.start({ ...env, DATA_DIR: dataDir });
    try {
      const httpPort = Number(new URL(app.url).port);
      // The database is up and used (an account is created), yet no new listener but the HTTP port.
      await createAccount(app, ['taker']);
      const opened = listeningPorts().filter((port) => !before.includes(port));
      const others = opened.filter((port) => port !== httpPort);
      // The attack: connect as postgres, without a password, to whatever else the process listens on.
      const answered = [];
      for (const port of others) if (await postgresAnswers(port)) answered.push(port);
      expect(answered).toEqual([]);
      expect(opened).toEqual([httpPort]);
      expect(listeningUnixPaths().filter((path) => path.startsWith(root))).toEqual([]);
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe("the embedded database is private: DATA_DIR is its owner's alone", () => {
  it('creates DATA_DIR with mode 0700 and leaves nothing in it open to other users', async () => {
    const dataDir = join(root, 'new', 'data');
    const app = await TestApp.start({ ...env, DATA_DIR: dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);
      expect((await new Http(app.url).get('/health')).status).toBe(200);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('closes an existing DATA_DIR of its owner (mode 0755, files 0644) to other users at start', async () => {
    const dataDir = join(root, 'existing');
    seedEmbeddedDataDir(dataDir);
    const first = await TestApp.start({ ...env, DATA_DIR: dataDir });
    await first.close();
    chmodSync(dataDir, 0o755);
    const file = readdirSync(dataDir).find((name) => statSync(join(dataDir, name)).isFile()) as string;
    chmodSync(join(dataDir, file), 0o644);
    const second = await TestApp.start({ ...env, DATA_DIR: dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await second.close();
    }
  }, 60_000);

  it.each([
    ['777', 0o777],
    ['775', 0o775],
    ['1777', 0o1777],
  ])('refuses a DATA_DIR other users can write (mode %s), naming it', async (_, mode) => {
    const dataDir = join(root, `shared-${mode.toString(8)}`);
    mkdirSync(dataDir);
    chmodSync(dataDir, mode);
    await expect(TestApp.start({ ...env, DATA_DIR: dataDir })).rejects.toThrow(`DATA_DIR ${dataDir} is writable by other users`);
    // Nothing was created in it.
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
