import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/** A key that signed receipts, from `from_at` (unix seconds) on; a rotation appends one (migration 6). */
@Entity('exchange_keys')
@Unique('exchange_keys_public_key_key', ['publicKey'])
export class ExchangeKeyEntity {
  @PrimaryColumn({ name: 'key_id', type: 'char', length: 16, primaryKeyConstraintName: 'exchange_keys_pkey' })
  keyId!: string;

  @Column({ name: 'public_key', type: 'text' })
  publicKey!: string;

  @Column(bigint('from_at'))
  fromAt!: bigint;
}
