import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Generated, Unique } from 'typeorm';
import { bigint, bigintColumn, createdAt } from '../../../common/database/columns';

/** A deposit or withdrawal (migration 0), idempotent by its `reference`. */
@Entity('transfers')
@Unique('transfers_reference_key', ['reference'])
@Check('transfers_kind_check', `kind IN ('deposit', 'withdrawal')`)
@Check('transfers_amount_check', 'amount > 0')
@Index('transfers_account', ['accountId', 'id'])
export class TransferEntity {
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'transfers_pkey' })
  @Generated('increment')
  id!: bigint;

  @Column(bigint('account_id'))
  @ForeignKey('accounts', { name: 'transfers_account_id_fkey' })
  accountId!: bigint;

  @Column({ name: 'kind', type: 'text' })
  kind!: 'deposit' | 'withdrawal';

  /** Micro-USDC. */
  @Column(bigint('amount'))
  amount!: bigint;

  @Column({ name: 'reference', type: 'text' })
  reference!: string;

  @Column(createdAt('created_at'))
  createdAt!: Date;
}
