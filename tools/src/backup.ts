/**
 * The embedded database's backup and restore (docs/operations.md, "Backups"; docs/spec/design.md
 * section 17). The embedded database has no socket (section 16), so `backup` asks the running
 * exchange for the file (`POST /v1/admin/backup`, an admin command in the audit log), and
 * `restore` writes a new DATA_DIR from it, offline, for `npm start` to run from.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { UsageError, type ParsedArgs, httpUrlOf, setting } from './common';

type Flags = ParsedArgs['flags'];

/** What a command prints and its exit code. */
interface Outcome {
  code: number;
  lines: string[];
  json: unknown;
}

/** A refusal that is not a usage mistake (exit 1, no usage text). */
export class Refusal extends Error {
  override name = 'Refusal';
}

function required(flags: Flags, flag: string, command: string): string {
  const value = flags[flag];
  if (typeof value !== 'string' || value === '') throw new UsageError(`${command} needs --${flag} ${flag === 'out' || flag === 'in' ? 'FILE' : 'DIR'}`);
  return value;
}

/** `backup --out FILE`: the running exchange's embedded database into FILE (new, mode 0600). */
export async function backupCommand(flags: Flags, args: string[]): Promise<Outcome> {
  if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
  const out = resolve(required(flags, 'out', 'backup'));
  const token = setting(flags, 'admin-token', 'LEGWORK_ADMIN_TOKEN') ?? setting(flags, 'token', 'LEGWORK_TOKEN');
  if (!token) throw new UsageError('backup is an admin command: give --admin-token (env LEGWORK_ADMIN_TOKEN) or an admin session --token');
  if (existsSync(out)) throw new Refusal(`${out} exists: a backup never overwrites a file`);
  const url = httpUrlOf(setting(flags, 'url', 'LEGWORK_URL', 'http://127.0.0.1:3000')!);
  const res = await fetch(`${url}/v1/admin/backup`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: the text itself
    }
    throw new Refusal(`the exchange refused the backup: HTTP ${res.status}: ${message}`);
  }
  const partial = `${out}.partial`;
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as never), tap, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    const sha256 = hash.digest('hex');
    const stated = res.headers.get('x-backup-sha256');
    if (stated !== sha256) throw new Refusal(`the file received does not match the exchange's checksum (${stated ?? 'none'} != ${sha256}): not kept`);
    renameSync(partial, out);
    const paused = Number(res.headers.get('x-backup-paused-ms') ?? NaN);
    return {
      code: 0,
      lines: [`backup written: ${out} (${bytes} bytes, sha256 ${sha256}; database work paused ${paused} ms)`],
      json: { file: out, bytes, sha256, paused_ms: paused },
    };
  } catch (error) {
    if (existsSync(partial)) unlinkSync(partial);
    throw error;
  }
}

/** The entries of a tar (ustar or v7 headers), or null when the bytes are not a whole one (src/common/database/tar.ts reads the same way). */
function tarEntries(tar: Buffer): string[] | null {
  const names: string[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return names;
    const field = (from: number, length: number) =>
      header
        .subarray(from, from + length)
        .toString('latin1')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const stored = header.reduce((sum, b, i) => sum + (i >= 148 && i < 156 ? 32 : b), 0);
    if (!Number.isFinite(size) || parseInt(field(148, 8).trim(), 8) !== stored) return null;
    const prefix = field(257, 6).startsWith('ustar') ? field(345, 155) : '';
    names.push((prefix ? `${prefix}/` : '') + field(0, 100));
    at += 512 + Math.ceil(size / 512) * 512;
    if (at > tar.length) return null;
  }
  return null;
}

/** The backup's tar, or a Refusal that says why the file is not one. */
function readBackup(file: string): Buffer {
  if (!existsSync(file)) throw new Refusal(`${file} does not exist`);
  let tar: Buffer;
  try {
    tar = gunzipSync(readFileSync(file));
  } catch (error) {
    throw new Refusal(`${file} is not a Legwork backup, or it is corrupt or truncated (${(error as Error).message})`);
  }
  const names = tarEntries(tar)?.map((n) => n.replace(/^\/+/, ''));
  if (!names || !names.includes('PG_VERSION') || !names.includes('global/pg_control')) {
    throw new Refusal(`${file} is not a Legwork backup: no embedded database data directory in it`);
  }
  return tar;
}

/** What the restored copy holds, read from it before any exchange runs on it. */
interface Summary {
  migration: string | null;
  fills: number;
  journal_seq: number;
  journal_hash: string;
}

async function restoreInto(dataDir: string, tar: Buffer): Promise<Summary> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir, loadDataDir: new Blob([tar]) });
  try {
    const one = async <T>(sql: string) => (await db.query<T>(sql)).rows[0];
    const migration = await one<{ name: string }>('SELECT name FROM migrations ORDER BY id DESC LIMIT 1');
    const fills = await one<{ n: number }>('SELECT count(*)::int AS n FROM fills');
    const head = await one<{ seq: number; hash: string } | undefined>('SELECT journal_seq::int AS seq, hash FROM receipts ORDER BY journal_seq DESC LIMIT 1');
    return { migration: migration?.name ?? null, fills: fills.n, journal_seq: head?.seq ?? 0, journal_hash: head?.hash ?? '0'.repeat(64) };
  } finally {
    await db.close();
  }
}

/** chmod go-rwx on the restored tree (PGlite writes files 0666): the exchange refuses a DATA_DIR others can write. */
function closeToOthers(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) closeToOthers(resolve(path, name));
}

const KEY_FILE = 'exchange-signing-key';

/** `restore --in FILE --data-dir DIR [--signing-key FILE]`: a new DATA_DIR from a backup. */
export async function restoreCommand(flags: Flags, args: string[]): Promise<Outcome> {
  if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
  const file = resolve(required(flags, 'in', 'restore'));
  const dataDir = resolve(required(flags, 'data-dir', 'restore'));
  const keyFile = flags['signing-key'] === undefined ? null : resolve(String(flags['signing-key']));
  const existed = existsSync(dataDir);
  if (existed && (!statSync(dataDir).isDirectory() || readdirSync(dataDir).length > 0)) {
    throw new Refusal(`${dataDir} is not an empty directory: restore writes a new DATA_DIR and never replaces one`);
  }
  if (keyFile !== null && !existsSync(keyFile)) throw new Refusal(`${keyFile} does not exist (the exchange-signing-key file of the source's DATA_DIR)`);
  const key = keyFile === null ? null : readFileSync(keyFile, 'utf8').trim();
  if (key !== null && !/^[0-9a-fA-F]{64}$/.test(key)) throw new Refusal(`${keyFile} is not 64 hex characters (an exchange-signing-key file)`);
  const tar = readBackup(file);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    const summary = await restoreInto(dataDir, tar);
    // The exchange leaves its key out of a backup; a tar that has one anyway (made by hand) gives way to --signing-key.
    if (key !== null) writeFileSync(resolve(dataDir, KEY_FILE), `${key}\n`, { mode: 0o600 });
    const keyHeld = existsSync(resolve(dataDir, KEY_FILE));
    closeToOthers(dataDir);
    return {
      code: 0,
      json: { data_dir: dataDir, ...summary, signing_key: keyHeld },
      lines: [
        `restored into ${dataDir}`,
        `  last migration  ${summary.migration ?? '(none)'}`,
        `  fills           ${summary.fills}`,
        `  journal head    journal_seq ${summary.journal_seq} hash ${summary.journal_hash}`,
        keyHeld
          ? `  signing key     ${key !== null ? 'copied' : 'from the backup'} (${KEY_FILE})`
          : '  signing key     not in the backup: copy exchange-signing-key from the old DATA_DIR (or set EXCHANGE_SIGNING_KEY), else a new key signs from now on',
        `start it: DATA_DIR=${dataDir} npm start`,
      ],
    };
  } catch (error) {
    // Nothing half-restored is left behind: the directory is as it was (absent or empty).
    if (existed) for (const name of readdirSync(dataDir)) rmSync(resolve(dataDir, name), { recursive: true, force: true });
    else rmSync(dataDir, { recursive: true, force: true });
    throw error instanceof Refusal ? error : new Refusal(`restore failed, ${dataDir} left as it was: ${(error as Error).message}`);
  }
}
