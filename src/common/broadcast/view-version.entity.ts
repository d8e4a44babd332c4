import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../database/columns';

/** A view topic's version, bumped by every change of that view (migration 12; docs/spec/design.md section 11). */
@Entity('view_versions')
export class ViewVersionEntity {
  @PrimaryColumn({ name: 'topic', type: 'text', primaryKeyConstraintName: 'view_versions_pkey' })
  topic!: string;

  @Column(bigint('version', { default: 0 }))
  version!: bigint;
}
