import { readFileSync } from 'node:fs';
import { type AuditRow, type SignedAuditHead, decodeWallet, verifyAuditAgainstHead } from '@legwork/sdk';
import { UsageError, type ParsedArgs, httpUrlOf, setting } from './common';

type Flags = ParsedArgs['flags'];

/** GET with the admin bearer; the parsed body, or an error naming the status. */
async function adminGet<T>(url: string, token: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/** A saved head: the file holds the head itself, or a whole GET /v1/admin/audit answer (its `head`). */
function savedHead(file: string): SignedAuditHead {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { head?: SignedAuditHead } & Partial<SignedAuditHead>;
  const head = parsed.head ?? (parsed as SignedAuditHead);
  if (typeof head.audit_seq !== 'number' || typeof head.hash !== 'string')
    throw new UsageError(`${file} holds no audit head ({ audit_seq, hash, at, key_id, signature })`);
  return head;
}

/**
 * `verify-audit --head FILE` (docs/spec/design.md section 20): reads the whole audit log (admin),
 * checks every link, and checks it against a head saved earlier: signed by the exchange key
 * (GET /v1/exchange/keys), reached by the chain, with the same hash there. A cut or rewritten
 * tail fails. Exit 0 when it holds, 1 otherwise.
 */
export async function verifyAuditCommand(flags: Flags, service: string): Promise<{ code: number; lines: string[]; json: unknown }> {
  const file = flags.head;
  if (typeof file !== 'string' || file === '') throw new UsageError('verify-audit needs --head FILE (a head saved from GET /v1/admin/audit)');
  const token = setting(flags, 'admin-token', 'LEGWORK_ADMIN_TOKEN') ?? setting(flags, 'token', 'LEGWORK_TOKEN');
  if (!token) throw new UsageError('verify-audit reads the admin audit log: give --admin-token (env LEGWORK_ADMIN_TOKEN) or an admin session --token');
  const url = httpUrlOf(setting(flags, 'url', 'LEGWORK_URL', 'http://127.0.0.1:3000')!);
  const head = savedHead(file);
  const rows: AuditRow[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await adminGet<{ rows: AuditRow[]; next_cursor?: string }>(url, token, `/v1/admin/audit?limit=200${after ? `&after=${after}` : ''}`);
    rows.push(...page.rows);
    if (!page.next_cursor) break;
    after = Number(page.next_cursor);
  }
  const keys = (await adminGet<{ keys: Array<{ key_id: string; public_key: string }> }>(url, token, '/v1/exchange/keys')).keys;
  const key = keys.find((k) => k.key_id === head.key_id);
  if (!key) return { code: 1, lines: [`audit BROKEN: the saved head's key ${head.key_id} is not an exchange key`], json: { ok: false, reason: 'unknown key' } };
  const verdict = verifyAuditAgainstHead(rows, head, { service, publicKey: decodeWallet(key.public_key) });
  if (verdict.ok) return { code: 0, lines: [`audit ok: ${verdict.checked} rows, reaches the saved head audit_seq ${head.audit_seq}`], json: verdict };
  return { code: 1, lines: [`audit BROKEN at audit_seq ${verdict.broken_at}: ${verdict.reason}`], json: verdict };
}
