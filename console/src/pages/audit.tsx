import { useEffect, useState } from 'preact/hooks';
import { call, describeError } from '../api';
import { type AuditPage as Page, type AuditRow, type AuditVerdict, verifyAuditLog } from '../audit';
import { ErrorText, Section, formValues, time, usePoll } from '../ui';

const PAGE = 50;
/** The verify walks the whole log in pages this large. */
const VERIFY_PAGE = 200;

const actorText = (row: AuditRow) =>
  row.actor.via === 'admin_token' ? 'admin token' : `session of account ${row.actor.account_id ?? '?'} (${row.actor.wallet?.slice(0, 8) ?? '?'}…)`;
const json = (value: unknown) => (value === null ? '—' : JSON.stringify(value));

/** The chain, checked here from the rows alone: verified up to the head, or broken at a row. */
function ChainBadge({ head }: { head: number | undefined }) {
  const [verdict, setVerdict] = useState<AuditVerdict | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [again, setAgain] = useState(0);
  // Again whenever the head moves (a new command was recorded); a walk overtaken by a newer one is dropped.
  useEffect(() => {
    if (head === undefined) return;
    let live = true;
    verifyAuditLog((after) => call<Page>('audit', { query: { after, limit: VERIFY_PAGE } })).then(
      (v) => live && (setVerdict(v), setError(null)),
      (e) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [head, again]);
  const button = (
    <button class="link" data-testid="verify-audit" onClick={() => setAgain((n) => n + 1)}>
      Verify again
    </button>
  );
  if (error) return <ErrorText error={`Verify failed: ${error}`} />;
  if (!verdict) return <span class="badge muted">verifying…</span>;
  const badge = verdict.ok ? (
    <span class="badge ok" data-testid="audit-verdict" data-ok="true" title={verdict.head.hash}>
      Verified up to head #{verdict.head.audit_seq} ({verdict.checked} rows, every hash recomputed here)
    </span>
  ) : (
    <span class="badge bad" data-testid="audit-verdict" data-ok="false">
      Broken at seq {verdict.brokenAt}: {verdict.problem}
    </span>
  );
  return (
    <>
      {badge} {button}
    </>
  );
}

function AuditTable({ rows }: { rows: AuditRow[] }) {
  return (
    <table data-testid="audit-table">
      <thead>
        <tr>
          <th scope="col">Seq</th>
          <th scope="col">At</th>
          <th scope="col">Actor</th>
          <th scope="col">Client</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Params</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.audit_seq} data-seq={r.audit_seq} data-status={r.status}>
            <td class="num" title={r.hash}>
              {r.audit_seq}
            </td>
            <td>{time(r.at)}</td>
            <td>{r.actor.account_id === null ? actorText(r) : <a href={`#/accounts/${r.actor.account_id}`}>{actorText(r)}</a>}</td>
            <td class="mono">{r.client_ip}</td>
            <td>{r.action}</td>
            <td class="mono">{json(r.target)}</td>
            <td class="mono">{json(r.params)}</td>
            <td class={r.status < 400 ? 'ok' : 'bad'}>{r.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Who ran which admin command and how it ended (docs/spec/design.md section 16), newest first, with the chain verified in the browser. */
export function AuditPage() {
  const [filter, setFilter] = useState<{ action?: string; account_id?: string }>({});
  // Pages back from the newest: the cursors of the pages above this one (empty: the live first page).
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const page = usePoll(() => call<Page>('audit', { query: { ...filter, after, limit: PAGE } }), 2000, [filter.action, filter.account_id, after]);
  const rows = page.data?.rows ?? [];
  return (
    <Section title="Audit log" id="audit">
      <div class="row">
        <ChainBadge head={page.data?.head.audit_seq} />
      </div>
      <form
        class="inline"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          const v = formValues(event);
          setFilter({ action: v.action.trim() || undefined, account_id: v.account_id.trim() || undefined });
          setCursors([]);
        }}
      >
        <label>
          Action <input name="action" size={18} placeholder="deposit, roles, …" />
        </label>
        <label>
          Actor account <input name="account_id" size={8} inputMode="numeric" />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorText error={page.error} />
      <AuditTable rows={rows} />
      <div class="row">
        <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button disabled={!page.data?.next_cursor} onClick={() => page.data?.next_cursor && setCursors([...cursors, page.data.next_cursor])}>
          Older
        </button>
        <span class="muted">{cursors.length === 0 ? 'Newest first, live' : `Page ${cursors.length + 1}`}</span>
      </div>
    </Section>
  );
}
