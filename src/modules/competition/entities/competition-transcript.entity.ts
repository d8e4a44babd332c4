import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/**
 * The signed transcript of a competitive RFQ (migration 1763800000340, docs/spec/design.md 18),
 * written in the transaction that ended its competition; deleted with its RFQ (never, for one
 * with a fill).
 */
@Entity('competition_transcripts')
export class CompetitionTranscriptEntity {
  /** No foreign key to rfqs (migration 1763800000410): written beside its RFQ's row, deleted with it by the history sweep. */
  @PrimaryColumn({ name: 'rfq_id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'competition_transcripts_pkey' })
  rfqId!: string;

  /** UTF-8 of the transcript as RFC 8785 canonical JSON: the bytes signed. */
  @Column({ name: 'payload', type: 'bytea' })
  payload!: Buffer;

  @Column({ name: 'hash', type: 'char', length: 64 })
  hash!: string;

  @Column({ name: 'key_id', type: 'char', length: 16 })
  keyId!: string;

  @Column({ name: 'signature', type: 'text' })
  signature!: string;

  @Column(bigint('closed_at_ms'))
  closedAtMs!: bigint;
}
