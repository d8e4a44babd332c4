import { JournalRepository } from '../../src/modules/journal/journal.repository';
import { describeBothDatabases } from './support/both-databases';

/**
 * The receipt chain has no unique index on hash or prev_hash (they were random-key B-trees on the
 * fills' one serial path): the append itself writes a receipt only as the head's next link. A
 * receipt that names another predecessor, or skips or repeats a journal_seq, is refused with
 * nothing written; the fills of receipts.e2e-spec.ts show the link that holds.
 */
describeBothDatabases('receipt chain: the append writes only the next link', (getDb) => {
  const zeros = '0'.repeat(64);
  const receipt = (journalSeq: bigint, prevHash: string) => ({
    journalSeq,
    kind: 0 as const,
    fillId: '1',
    payload: Buffer.from('not a receipt'),
    hash: 'a'.repeat(64),
    prevHash,
    keyId: '0'.repeat(16),
    signature: 'AA==',
    at: 1,
  });
  const state = async () =>
    getDb().one<{ seq: string; hash: string; receipts: string }>(
      `SELECT journal_seq::text AS seq, hash, (SELECT count(*) FROM receipts)::text AS receipts FROM journal_head WHERE id = 1`,
    );

  it.each([
    ['names another predecessor', receipt(1n, 'b'.repeat(64))],
    ['skips a journal_seq', receipt(2n, zeros)],
    ['repeats the head journal_seq', receipt(0n, zeros)],
  ])('refuses a receipt that %s, writing nothing', async (_, r) => {
    const journal = new JournalRepository(getDb());
    const before = await state();
    expect(before).toEqual({ seq: '0', hash: zeros, receipts: '0' });
    const error = await getDb()
      .tx((sql) => journal.appendReceipt(sql, r))
      .catch((e: unknown) => e);
    expect(String(error)).toContain('is not the next link of the journal head');
    expect(await state()).toEqual(before);
  });
});
