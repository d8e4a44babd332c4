import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigintColumn, wholeNumeric } from '../../../common/database/columns';

/** A maker's quote-nonce high-water mark (migration 1): a quote's nonce must be above it, u64. */
@Entity('maker_nonces')
@Check('maker_nonces_high_water_check', 'high_water > 0 AND high_water <= 18446744073709551615')
export class MakerNonceEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'maker_nonces_pkey' })
  @ForeignKey('accounts', { name: 'maker_nonces_account_id_fkey' })
  accountId!: bigint;

  @Column(wholeNumeric('high_water', { precision: 20 }))
  highWater!: bigint;
}
