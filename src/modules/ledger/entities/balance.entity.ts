import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** An account's USDC: `total` and the part `locked` as collateral (migrations 0 and 14), micro-USDC. */
@Entity('balances')
@Check('balances_locked_check', 'locked >= 0')
@Index('balances_under_collateralized', ['accountId'], { where: 'total < locked' })
export class BalanceEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'balances_pkey' })
  @ForeignKey('accounts', { name: 'balances_account_id_fkey' })
  accountId!: bigint;

  @Column(bigint('total', { default: 0 }))
  total!: bigint;

  @Column(bigint('locked', { default: 0 }))
  locked!: bigint;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
