import { Column, Entity, Generated, Index, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** A sign-in nonce (migration 0): issued to a wallet, spent once, gone at `expires_at` (unix seconds). */
@Entity('auth_nonces')
@Index('auth_nonces_wallet', ['wallet', 'createdSeq'])
@Index('auth_nonces_expires', ['expiresAt'])
export class AuthNonceEntity {
  @PrimaryColumn({ name: 'nonce', type: 'char', length: 32, primaryKeyConstraintName: 'auth_nonces_pkey' })
  nonce!: string;

  @Column({ name: 'wallet', type: 'text' })
  wallet!: string;

  @Column(bigint('expires_at'))
  expiresAt!: bigint;

  /** Issue order, per wallet: the oldest nonces go first when a wallet holds too many. */
  @Column({ name: 'created_seq', type: 'bigint', transformer: bigintColumn })
  @Generated('increment')
  createdSeq!: bigint;
}
