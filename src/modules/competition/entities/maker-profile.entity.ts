import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { bigintColumn } from '../../../common/database/columns';

/**
 * A maker's profile (migration 1763800000380, docs/spec/design.md 18 and 19): written by
 * rfq.maker.set_profile; an account without a row has the defaults (unlisted, no name, no cancel
 * on disconnect).
 */
@Entity('maker_profiles')
// The cancel-on-disconnect check: the makers with the flag, every second.
@Index('maker_profiles_cancel_on_disconnect', ['accountId'], { where: 'cancel_on_disconnect' })
// The makers directory (rfq.makers): the listed makers (migration 1763800000400).
@Index('maker_profiles_listed', ['accountId'], { where: 'listed' })
export class MakerProfileEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'maker_profiles_pkey' })
  @ForeignKey('accounts', { name: 'maker_profiles_account_id_fkey' })
  accountId!: bigint;

  @Column({ name: 'listed', type: 'boolean', default: false })
  listed!: boolean;

  @Column({ name: 'name', type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'cancel_on_disconnect', type: 'boolean', default: false })
  cancelOnDisconnect!: boolean;
}
