import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn, wholeNumeric } from '../../../common/database/columns';

/**
 * The index-free part of the lock of one (account, asset, expiry) group of open positions
 * (migration 14; collateral.sql.ts): exact integers in `numeric`, micro^2 units.
 */
@Entity('lock_groups')
@Check('lock_groups_worst_check', 'worst <= 0')
@Index('lock_groups_short_calls', ['asset', 'accountId'], { where: 'call_q < 0' })
export class LockGroupEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'lock_groups_pkey' })
  @ForeignKey('accounts', { name: 'lock_groups_account_id_fkey' })
  accountId!: bigint;

  @PrimaryColumn({ name: 'asset', type: 'text', primaryKeyConstraintName: 'lock_groups_pkey' })
  asset!: string;

  /** Unix seconds. */
  @PrimaryColumn({ name: 'expiry', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'lock_groups_pkey' })
  expiry!: bigint;

  @Column(wholeNumeric('worst'))
  worst!: bigint;

  @Column(wholeNumeric('call_q'))
  callQ!: bigint;

  @Column(wholeNumeric('call_qk'))
  callQk!: bigint;

  @Column(bigint('top_strike'))
  topStrike!: bigint;
}
