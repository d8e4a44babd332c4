import type { Client } from 'pg';
import { Http } from '../e2e/clients';
import { ADMIN_TOKEN } from '../e2e/harness';
import type { Instance } from './fleet';

/** What the database says of the RFQs that were accepted (docs/spec/design.md section 11's promises). */
export interface AcceptedOutcome {
  /** RFQs with an accept on record. */
  accepted: number;
  filled: number;
  failed: number;
  /** Still accepted or submitting. */
  open: number;
  /** RFQs with more than one fill row (never: fills.rfq_id is unique), or filled but also failed. */
  doubled: number;
  /** Longest accept → final state, seconds (whole seconds: the rows keep unix seconds). */
  longestWaitSeconds: number;
}

export async function acceptedOutcome(db: Client): Promise<AcceptedOutcome> {
  const { rows } = await db.query(`
    SELECT count(*)::int AS accepted,
           count(*) FILTER (WHERE r.state = 'filled')::int AS filled,
           count(*) FILTER (WHERE r.state = 'failed')::int AS failed,
           count(*) FILTER (WHERE r.state IN ('accepted', 'submitting'))::int AS open,
           coalesce(max(r.updated_at - a.accepted_at) FILTER (WHERE r.state IN ('filled', 'failed')), 0)::int AS longest
      FROM accepts a JOIN rfqs r ON r.id = a.rfq_id`);
  const { rows: doubled } = await db.query(`
    SELECT count(*)::int AS n FROM (
      SELECT f.rfq_id FROM fills f JOIN rfqs r ON r.id = f.rfq_id
       GROUP BY f.rfq_id, r.state HAVING count(*) > 1 OR (r.state <> 'filled' AND bool_or(f.reverted_at IS NULL))) d`);
  return {
    accepted: rows[0].accepted,
    filled: rows[0].filled,
    failed: rows[0].failed,
    open: rows[0].open,
    doubled: doubled[0].n,
    longestWaitSeconds: rows[0].longest,
  };
}

/** RFQs still accepted or submitting. */
export async function openAccepted(db: Client): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE state IN ('accepted', 'submitting')`);
  return rows[0].n;
}

export const adminOf = (instance: Instance) => new Http(instance.url).as(ADMIN_TOKEN);

export async function healthStatus(instance: Instance): Promise<number> {
  try {
    const res = await fetch(`${instance.url}/health`, { signal: AbortSignal.timeout(3000) });
    return res.status;
  } catch {
    return 0;
  }
}
