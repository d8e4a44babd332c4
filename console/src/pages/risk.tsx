import { useState } from 'preact/hooks';
import type { JournalRow } from '@legwork/protocol';
import { call, describeError } from '../api';
import { trimDecimal } from '../money';
import { verifyJournal } from '../receipts';
import { ErrorText, Section, time, usePoll } from '../ui';

interface RiskReport {
  accounts: Array<{ account_id: number; total: string; locked: string; available: string }>;
  totals: { total: string; locked: string; deficit: string };
}
interface Journal {
  rows: JournalRow[];
  head: { journal_seq: number; hash: string };
}

/** Under-collateralized accounts and the deficit (docs/spec/design.md 12); the receipt journal's head and a verify (docs/spec/design.md 14). */
export function RiskPage() {
  return (
    <>
      <RiskSection />
      <JournalSection />
    </>
  );
}

function RiskSection() {
  const risk = usePoll(() => call<RiskReport>('risk'), 2000);
  const r = risk.data;
  return (
    <Section title="Under-collateralized accounts" id="risk">
      <ErrorText error={risk.error} />
      {r && (
        <>
          <dl class="stats" data-testid="risk-totals">
            <div>
              <dt>Deficit</dt>
              <dd class={r.totals.deficit.replace(/[0.]/g, '') ? 'bad' : 'ok'} data-testid="deficit">
                {trimDecimal(r.totals.deficit)}
              </dd>
            </div>
            <div>
              <dt>Their total</dt>
              <dd class="num">{trimDecimal(r.totals.total)}</dd>
            </div>
            <div>
              <dt>Their locked</dt>
              <dd class="num">{trimDecimal(r.totals.locked)}</dd>
            </div>
          </dl>
          <RiskAccounts accounts={r.accounts} />
          {r.accounts.length === 0 && <p class="muted">Every account covers its locks.</p>}
        </>
      )}
    </Section>
  );
}

function RiskAccounts({ accounts }: { accounts: RiskReport['accounts'] }) {
  return (
    <table data-testid="risk-accounts">
      <thead>
        <tr>
          <th scope="col">Account</th>
          <th scope="col">Total</th>
          <th scope="col">Locked</th>
          <th scope="col">Available</th>
        </tr>
      </thead>
      <tbody>
        {accounts.map((a) => (
          <tr key={a.account_id} data-account={a.account_id}>
            <td class="num">
              <a href={`#/accounts/${a.account_id}`}>{a.account_id}</a>
            </td>
            <td class="num">{trimDecimal(a.total)}</td>
            <td class="num">{trimDecimal(a.locked)}</td>
            <td class="num bad">{trimDecimal(a.available)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Walks the whole chain from the first receipt (docs/spec/design.md 14); the verdict as the page shows it. */
function useJournalVerify() {
  const [verdict, setVerdict] = useState<{ text: string; ok: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    try {
      const result = await verifyJournal((after) => call<Journal>('journal', { query: { after, limit: 1000 }, bearer: null }));
      setVerdict(
        result.ok
          ? {
              ok: true,
              text: `Verified: ${result.checked} receipts, every link holds, up to the head ${result.head.journal_seq} (${result.head.hash.slice(0, 16)}…)`,
            }
          : { ok: false, text: `Broken after ${result.checked} receipts: ${result.problem}` },
      );
    } catch (e) {
      setVerdict({ ok: false, text: `Verify failed: ${describeError(e)}` });
    } finally {
      setBusy(false);
    }
  };
  return { verdict, busy, verify };
}

function JournalSection() {
  // The latest 20 receipts: the head first (a one-row read), then the page that ends at it.
  const journal = usePoll(async () => {
    const { head } = await call<Journal>('journal', { query: { after: 0, limit: 1 }, bearer: null });
    const latest = await call<Journal>('journal', { query: { after: Math.max(0, head.journal_seq - 20), limit: 20 }, bearer: null });
    return { head: latest.head, rows: [...latest.rows].reverse() };
  }, 2000);
  const { verdict, busy, verify } = useJournalVerify();
  return (
    <Section title="Receipt journal" id="journal">
      <ErrorText error={journal.error} />
      {journal.data && (
        <>
          <dl class="stats" data-testid="journal-head">
            <div>
              <dt>Head</dt>
              <dd class="num">{journal.data.head.journal_seq}</dd>
            </div>
            <div>
              <dt>Head hash</dt>
              <dd class="mono">{journal.data.head.hash}</dd>
            </div>
          </dl>
          <p>
            <button onClick={verify} disabled={busy} data-testid="verify-journal">
              Verify the chain
            </button>
          </p>
          {verdict && (
            <p class={verdict.ok ? 'notice' : 'error'} role="status" data-testid="journal-verdict">
              {verdict.text}
            </p>
          )}
          <JournalRows rows={journal.data.rows} />
        </>
      )}
    </Section>
  );
}

function JournalRows({ rows }: { rows: JournalRow[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Seq</th>
          <th scope="col">Kind</th>
          <th scope="col">Hash</th>
          <th scope="col">At</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.journal_seq}>
            <td class="num">{row.journal_seq}</td>
            <td>{row.kind === 0 ? 'fill' : 'revert'}</td>
            <td class="mono">{row.hash}</td>
            <td>{time(row.at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
