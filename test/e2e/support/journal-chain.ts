import { createHash } from 'node:crypto';
import { Ed25519Verifier, parseWallet } from '@legwork/protocol';
import type { Client } from 'pg';

/**
 * What is wrong with the journal of a database read directly (docs/spec/design.md 14, docs/receipts.md):
 * each receipt's hash is SHA-256 of its payload, its payload names its own journal_seq and the
 * hash before it, journal_seq runs 1, 2, 3… without a gap, the head is the last receipt, every
 * signature verifies with its listed key, every fill has exactly one kind-0 receipt and every
 * reverted fill one kind-1 receipt (no other) unless staged, and `expect.staged` rows are staged (none by default). Empty when all holds.
 */
export async function journalViolations(db: Client, expect: { staged: number } = { staged: 0 }): Promise<string[]> {
  const out: string[] = [];
  const keys = new Map<string, string>((await db.query(`SELECT key_id, public_key FROM exchange_keys`)).rows.map((k: any) => [k.key_id, k.public_key]));
  const verifier = new Ed25519Verifier();
  const receipts = (
    await db.query(
      `SELECT journal_seq::text AS seq, kind, fill_id::text AS fill_id, payload, hash, prev_hash, key_id, signature FROM receipts ORDER BY journal_seq`,
    )
  ).rows;
  let prev = '0'.repeat(64);
  for (const [i, r] of receipts.entries()) {
    const payload: Buffer = r.payload;
    const where = `receipt ${r.seq}`;
    if (r.seq !== String(i + 1)) out.push(`${where}: expected journal_seq ${i + 1}`);
    if (createHash('sha256').update(payload).digest('hex') !== r.hash) out.push(`${where}: hash is not SHA-256 of the payload`);
    if (r.prev_hash !== prev || payload.subarray(56, 88).toString('hex') !== prev) out.push(`${where}: does not link to the one before`);
    if (payload.readBigUInt64LE(48) !== BigInt(r.seq)) out.push(`${where}: payload names another journal_seq`);
    if (payload.readBigUInt64LE(232) !== BigInt(r.fill_id) || payload[14] !== r.kind) out.push(`${where}: payload names another fill or kind`);
    const key = keys.get(r.key_id);
    if (!key || !verifier.verify(parseWallet(key), payload, Buffer.from(r.signature, 'base64'))) out.push(`${where}: signature does not verify`);
    prev = r.hash;
  }
  const [head] = (await db.query(`SELECT journal_seq::text AS seq, hash FROM journal_head WHERE id = 1`)).rows;
  if (head.seq !== String(receipts.length) || head.hash !== prev) out.push(`head ${head.seq} is not the last receipt (${receipts.length})`);
  const wrong = await db.query(
    `SELECT f.id::text AS fill_id, f.reverted,
            (SELECT count(*) FROM receipts r WHERE r.fill_id = f.id AND r.kind = 0)::int AS fills,
            (SELECT count(*) FROM receipts r WHERE r.fill_id = f.id AND r.kind = 1)::int AS reverts,
            EXISTS (SELECT 1 FROM journal_pending p WHERE p.fill_id = f.id) AS staged
       FROM fills f`,
  );
  for (const f of wrong.rows) {
    // A fill or revert whose receipt is still staged (`expect.staged` of them) has none yet.
    if (f.staged) continue;
    if (f.fills !== 1 || f.reverts !== (f.reverted ? 1 : 0))
      out.push(`fill ${f.fill_id}: ${f.fills} fill and ${f.reverts} revert receipts (reverted: ${f.reverted})`);
  }
  const [{ n: staged }] = (await db.query(`SELECT count(*)::int AS n FROM journal_pending`)).rows;
  if (staged !== expect.staged) out.push(`${staged} receipts staged, expected ${expect.staged}`);
  return out;
}
