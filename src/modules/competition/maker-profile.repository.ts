import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import { type RowOf, columnList } from '../../common/database/table';

const PROFILE = columnList('maker_profiles', ['listed', 'name', 'cancel_on_disconnect']);
type ProfileRow = RowOf<typeof PROFILE>;

/** A maker's profile as the wire shows it (rfq.maker.set_profile's result). */
export interface MakerProfile {
  listed: boolean;
  name: string | null;
  cancel_on_disconnect: boolean;
}

/** What rfq.maker.set_profile changes: an absent field keeps its value. */
export type MakerProfilePatch = Partial<{ listed: boolean; name: string; cancelOnDisconnect: boolean }>;

const toProfile = (r: ProfileRow): MakerProfile => ({ listed: r.listed, name: r.name, cancel_on_disconnect: r.cancel_on_disconnect });

/** `maker_profiles` (migration 1763800000380): one row per maker that set its profile. */
@Injectable()
export class MakerProfileRepository {
  constructor(private readonly db: Database) {}

  /**
   * Writes the given fields in one statement (an insert with the defaults for the others, or an
   * update of only those), so two concurrent calls each keep the other's fields.
   */
  async set(accountId: number, patch: MakerProfilePatch, sql: Sql = this.db): Promise<MakerProfile> {
    const rows = await sql.rows<ProfileRow>(
      `INSERT INTO maker_profiles (account_id, listed, name, cancel_on_disconnect)
       VALUES ($1, COALESCE($2::boolean, false), $3::text, COALESCE($4::boolean, false))
       ON CONFLICT (account_id) DO UPDATE SET
         listed = COALESCE($2::boolean, maker_profiles.listed),
         name = COALESCE($3::text, maker_profiles.name),
         cancel_on_disconnect = COALESCE($4::boolean, maker_profiles.cancel_on_disconnect)
       RETURNING ${PROFILE.sql}`,
      [accountId, patch.listed ?? null, patch.name ?? null, patch.cancelOnDisconnect ?? null],
    );
    return toProfile(rows[0]);
  }

  /**
   * The makers with cancel_on_disconnect set that have a live competitive quote, with their
   * wallet: the accounts the cancel-on-disconnect check watches (maker_profiles_cancel_on_disconnect,
   * then competition_quotes_maker_live per maker).
   */
  async watched(sql: Sql = this.db): Promise<Array<{ accountId: number; wallet: string }>> {
    const rows = await sql.rows<{ account_id: string; maker_wallet: string }>(
      `SELECT p.account_id, q.maker_wallet FROM maker_profiles p
       CROSS JOIN LATERAL (SELECT maker_wallet FROM competition_quotes WHERE maker_account_id = p.account_id AND ending IS NULL LIMIT 1) q
       WHERE p.cancel_on_disconnect`,
    );
    return rows.map((r) => ({ accountId: Number(r.account_id), wallet: r.maker_wallet }));
  }
}
