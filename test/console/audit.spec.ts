import { type AuditPage, type AuditRow, verifyAuditLog } from '../../console/src/audit';
import { auditHash } from '../../src/modules/audit/domain/audit-chain';

/**
 * The console's walk of the audit chain (with the server's own row hash, `@legwork/protocol`'s)
 * verifies a chain the server wrote, and names the row where a chain breaks, walking back from the head.
 */
function chain(n: number): AuditRow[] {
  const rows: AuditRow[] = [];
  let prev = '0'.repeat(64);
  for (let i = 1; i <= n; i++) {
    const row = {
      audit_seq: i,
      at: 1_763_800_000 + i,
      actor: { via: 'session' as const, account_id: 3, wallet: 'Wallet', jti: `jti-${i}` },
      client_ip: '2001:db8:0:1::/64',
      action: 'market-data',
      target: null,
      params: { asset: 'SOL', note: 'é €\n"\\ 😀 \u0001', list: [1, -2, true, null, { z: 1, a: [] }] },
      status: i % 3 ? 200 : 409,
      prev_hash: prev,
    };
    const hash = auditHash(row);
    rows.push({ ...row, hash });
    prev = hash;
  }
  return rows;
}

/** Pages newest first as GET /v1/admin/audit answers them. */
const pager =
  (rows: AuditRow[], limit = 4) =>
  async (after: string | undefined): Promise<AuditPage> => {
    const newest = [...rows].reverse().filter((r) => after === undefined || r.audit_seq < Number(after));
    const page = newest.slice(0, limit);
    const last = page.at(-1);
    const head = rows.length ? { audit_seq: rows.at(-1)!.audit_seq, hash: rows.at(-1)!.hash } : { audit_seq: 0, hash: '0'.repeat(64) };
    return page.length === limit && last && last.audit_seq > 1 ? { rows: page, next_cursor: String(last.audit_seq), head } : { rows: page, head };
  };

describe('console audit verify', () => {
  it('verifies a chain across pages up to the head, and an empty log', async () => {
    const rows = chain(10);
    expect(await verifyAuditLog(pager(rows))).toEqual({ ok: true, head: { audit_seq: 10, hash: rows[9].hash }, checked: 10 });
    expect(await verifyAuditLog(pager([]))).toMatchObject({ ok: true, checked: 0 });
  });

  it('names where it breaks: an edited row, an edited row rehashed, a missing row, a head that is not the last hash', async () => {
    const rows = chain(10);
    const edit = (seq: number, change: Partial<AuditRow>) => rows.map((r) => (r.audit_seq === seq ? { ...r, ...change } : r));
    expect(await verifyAuditLog(pager(edit(6, { status: 200 })))).toMatchObject({ ok: false, brokenAt: 6 });
    const edited = edit(6, { actor: { ...rows[5].actor, wallet: 'Other' } });
    expect(await verifyAuditLog(pager(edit(6, { ...edited[5], hash: auditHash(edited[5]) })))).toMatchObject({ ok: false, brokenAt: 7 });
    expect(await verifyAuditLog(pager(rows.filter((r) => r.audit_seq !== 2)))).toMatchObject({ ok: false, brokenAt: 2 });
    const headless = async (after: string | undefined) => ({ ...(await pager(rows)(after)), head: { audit_seq: 10, hash: 'f'.repeat(64) } });
    expect(await verifyAuditLog(headless)).toMatchObject({ ok: false, brokenAt: 10, problem: 'its hash is not the head' });
  });
});
