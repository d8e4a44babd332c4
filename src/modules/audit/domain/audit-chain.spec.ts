import { createHash } from 'node:crypto';
import { type AuditRow, ZERO_HASH, auditHash, canonicalJson, verifyAuditChain } from './audit-chain';
import { REDACTED, redactParams } from './audit-params';

/** A chain of `n` rows built the way the service builds it. */
function chain(n: number): AuditRow[] {
  const rows: AuditRow[] = [];
  let prev = ZERO_HASH;
  for (let i = 1; i <= n; i++) {
    const row = {
      audit_seq: i,
      at: 1_763_800_000 + i,
      actor:
        i % 2 ? { via: 'admin_token' as const, account_id: null, wallet: null, jti: null } : { via: 'session' as const, account_id: 7, wallet: 'W', jti: 'j' },
      client_ip: '10.0.0.1',
      action: 'deposit',
      target: { account_id: String(i) },
      params: { amount: '1.5', reference: `r${i}` },
      status: 200,
      prev_hash: prev,
    };
    const hash = auditHash(row);
    rows.push({ ...row, hash });
    prev = hash;
  }
  return rows;
}

describe('canonicalJson (RFC 8785 for strings, integers, booleans, null, objects, arrays)', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3) and writes no whitespace', () => {
    const value = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew',
      '1': 'One',
      '\ud83d\ude00': 'Emoji',
      '\u0080': 'Control',
      '\u00f6': 'o',
    };
    const keys = Object.keys(JSON.parse(canonicalJson(value)) as object);
    expect(canonicalJson(value)).toBe('{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"o","€":"Euro Sign","😀":"Emoji","\ufb33":"Hebrew"}');
    expect(keys).toHaveLength(7);
  });

  it('escapes strings as RFC 8785 section 3.2.2.2 does', () => {
    expect(canonicalJson('\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/')).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
  });

  it('nests, keeps integers, null, booleans and empty containers, and sorts at every level', () => {
    expect(canonicalJson({ b: [3, { z: null, a: true }], a: {}, c: [], d: -0, e: -12 })).toBe('{"a":{},"b":[3,{"a":true,"z":null}],"c":[],"d":0,"e":-12}');
  });

  it('refuses what it could not write back the same way: floats, unsafe integers, lone surrogates, undefined', () => {
    expect(() => canonicalJson(1.5)).toThrow('integer');
    expect(() => canonicalJson(2 ** 53)).toThrow('integer');
    expect(() => canonicalJson('\ud800x')).toThrow('surrogate');
    expect(() => canonicalJson({ a: undefined })).toThrow('undefined');
  });
});

describe('auditHash', () => {
  it('is SHA-256 of the prev_hash bytes then the canonical row without hash', () => {
    const [row] = chain(1);
    const text =
      '{"action":"deposit","actor":{"account_id":null,"jti":null,"via":"admin_token","wallet":null},"at":1763800001,"audit_seq":1,' +
      `"client_ip":"10.0.0.1","params":{"amount":"1.5","reference":"r1"},"prev_hash":"${ZERO_HASH}","status":200,"target":{"account_id":"1"}}`;
    expect(row.hash).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.alloc(32), Buffer.from(text)]))
        .digest('hex'),
    );
    // The hash field itself never counts.
    expect(auditHash({ ...row, hash: 'f'.repeat(64) })).toBe(row.hash);
  });
});

describe('verifyAuditChain', () => {
  it('passes an intact chain in any order, and a page from the middle given the row before it', () => {
    const rows = chain(5);
    expect(verifyAuditChain([...rows].reverse(), { head: { audit_seq: 5, hash: rows[4].hash } })).toEqual({
      ok: true,
      checked: 5,
      last: { audit_seq: 5, hash: rows[4].hash },
    });
    expect(verifyAuditChain(rows.slice(2), { from: { audit_seq: 2, hash: rows[1].hash } })).toMatchObject({ ok: true, checked: 3 });
    expect(verifyAuditChain([])).toMatchObject({ ok: true, checked: 0 });
  });

  it('names the first broken row: an edited field, a rewritten hash, a removed row, a first row that does not start at zero', () => {
    const rows = chain(5);
    const edited = rows.map((r) => (r.audit_seq === 3 ? { ...r, status: 201 } : r));
    expect(verifyAuditChain(edited)).toMatchObject({ ok: false, broken_at: 3, reason: 'hash is not the hash of the row' });
    // Rehashing the edited row moves the break to the next link.
    const rehashed = edited.map((r) => (r.audit_seq === 3 ? { ...r, hash: auditHash(r) } : r));
    expect(verifyAuditChain(rehashed)).toMatchObject({ ok: false, broken_at: 4, reason: 'prev_hash is not the hash of row 3' });
    expect(verifyAuditChain(rows.filter((r) => r.audit_seq !== 2))).toMatchObject({ ok: false, broken_at: 3, reason: 'audit_seq 3 follows 1' });
    expect(verifyAuditChain(rows.slice(1))).toMatchObject({ ok: false, broken_at: 2 });
    expect(verifyAuditChain(rows, { head: { audit_seq: 5, hash: ZERO_HASH } })).toMatchObject({
      ok: false,
      broken_at: 5,
      reason: 'the last hash is not the head',
    });
    const float = rows.map((r) => (r.audit_seq === 1 ? { ...r, params: { amount: 1.5 } } : r));
    expect(verifyAuditChain(float)).toMatchObject({ ok: false, broken_at: 1 });
  });
});

describe('redactParams', () => {
  it('drops signatures and secrets at any depth, keeps the rest', () => {
    expect(redactParams({ wallet: 'W', signature: 'sig', nested: [{ taker_signature: 'x', admin_token: 't', amount: '1' }], secretKey: 'k' })).toEqual({
      wallet: 'W',
      signature: REDACTED,
      nested: [{ taker_signature: REDACTED, admin_token: REDACTED, amount: '1' }],
      secretKey: REDACTED,
    });
  });

  it('writes what canonical JSON and jsonb cannot keep as text, and stops at 16 levels', () => {
    expect(redactParams({ a: 1.5, b: 2 ** 60, c: 'x\u0000y', d: '\ud800', e: undefined })).toEqual({
      a: '1.5',
      b: '1152921504606847000',
      c: 'x\uFFFDy',
      d: '\uFFFD',
      e: null,
    });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const kept = redactParams(deep);
    expect(() => canonicalJson(kept)).not.toThrow();
    expect(canonicalJson(kept)).toContain('deeper than 16 levels');
    expect(redactParams(undefined)).toBeNull();
  });
});
