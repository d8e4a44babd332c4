import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** What an account's position in an instrument paid or received at settlement (migration 2). */
@Entity('settlement_payments')
export class SettlementPaymentEntity {
  @PrimaryColumn({ name: 'instrument', type: 'text', primaryKeyConstraintName: 'settlement_payments_pkey' })
  @ForeignKey('instruments', { name: 'settlement_payments_instrument_fkey' })
  instrument!: string;

  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'settlement_payments_pkey' })
  @ForeignKey('accounts', { name: 'settlement_payments_account_id_fkey' })
  accountId!: bigint;

  /** Signed micro-contracts settled. */
  @Column(bigint('quantity'))
  quantity!: bigint;

  /** Micro-USDC, signed. */
  @Column(bigint('amount'))
  amount!: bigint;

  @Column({ name: 'settled_at', type: 'timestamptz', default: () => 'now()' })
  settledAt!: Date;
}
