import { useState } from 'preact/hooks';
import { call } from '../api';
import { trimDecimal } from '../money';
import { ErrorText, type PendingAction, Section, time, usePoll } from '../ui';
import { RFQ_STATES } from '../wire';

interface Rfq {
  rfq_id: string;
  account_id: number;
  asset: string;
  expiry: number;
  legs: Array<{ instrument: string; quantity: string }>;
  state: string;
  created_at: number;
  updated_at: number;
  maker_account_id: number | null;
  bid: string | null;
  ask: string | null;
  accepted_side: string | null;
  fill_price: string | null;
  fill_reverted: boolean;
  failure_error: string | null;
}
interface RfqEvent {
  id: string;
  event: string;
  state: string;
  at: number;
}

const PAGE = 50;
const STATES = ['', ...RFQ_STATES];

/** One RFQ of the table: its legs, state, maker, quote and fill, and the revert of a fill. */
function RfqRow({ r, selected, onSelect, onRevert }: { r: Rfq; selected: boolean; onSelect: () => void; onRevert: () => void }) {
  return (
    <tr data-rfq={r.rfq_id} data-state={r.state} class={selected ? 'selected' : undefined}>
      <td>
        <button class="link mono" onClick={onSelect} title={`Events of RFQ ${r.rfq_id}`}>
          {r.rfq_id.slice(0, 12)}…
        </button>
      </td>
      <td class="num">
        <a href={`#/accounts/${r.account_id}`}>{r.account_id}</a>
      </td>
      <td>{r.legs.map((l) => `${trimDecimal(l.quantity)} ${l.instrument}`).join(', ')}</td>
      <td>
        <span class={`badge state-${r.state}`}>{r.state}</span>
        {r.fill_reverted ? ' (reverted)' : ''}
      </td>
      <td class="num">{r.maker_account_id === null ? '—' : <a href={`#/accounts/${r.maker_account_id}`}>{r.maker_account_id}</a>}</td>
      <td class="num">{r.bid ? `${trimDecimal(r.bid)} / ${trimDecimal(r.ask)}` : '—'}</td>
      <td class="num">{r.fill_price ? `${r.accepted_side} @ ${trimDecimal(r.fill_price)}` : (r.failure_error ?? '—')}</td>
      <td>{time(r.updated_at)}</td>
      <td>
        {r.state === 'filled' && !r.fill_reverted && (
          <button class="danger" onClick={onRevert}>
            Revert
          </button>
        )}
      </td>
    </tr>
  );
}

function RfqTableHead() {
  return (
    <thead>
      <tr>
        <th scope="col">RFQ</th>
        <th scope="col">Taker</th>
        <th scope="col">Legs</th>
        <th scope="col">State</th>
        <th scope="col">Maker</th>
        <th scope="col">Bid / ask</th>
        <th scope="col">Fill</th>
        <th scope="col">Updated</th>
        <th scope="col">Actions</th>
      </tr>
    </thead>
  );
}

/** The selected RFQ's events, oldest first. */
function RfqEvents({ rfqId, events }: { rfqId: string; events: { data: { events: RfqEvent[] } | null; error: string | null } }) {
  return (
    <Section title={`Events of RFQ ${rfqId}`} id="events">
      <ErrorText error={events.error} />
      <ol class="events" data-testid="rfq-events">
        {(events.data?.events ?? []).map((e) => (
          <li key={e.id}>
            {time(e.at)} <strong>{e.event}</strong> → {e.state}
          </li>
        ))}
      </ol>
    </Section>
  );
}

/** Every RFQ, newest first, refreshed every second; events of the selected one; revert of a fill. */
export function RfqsPage({ confirm }: { confirm: (a: PendingAction) => void }) {
  const [state, setState] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  // Pages back from the newest: the cursors of the pages above this one (empty: the live first page).
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const rfqs = usePoll(() => call<{ rfqs: Rfq[] }>('rfqs', { query: { state: state || undefined, limit: PAGE, before } }), 1000, [state, before]);
  const rows = rfqs.data?.rfqs ?? [];
  const events = usePoll(() => (selected ? call<{ events: RfqEvent[] }>('rfqEvents', { path: { rfq_id: selected } }) : Promise.resolve({ events: [] })), 1000, [
    selected,
  ]);

  const revert = (rfq: Rfq) =>
    confirm({
      title: `Revert the fill of RFQ ${rfq.rfq_id}`,
      detail: 'Undoes the fill exactly (cash, fee, positions, locks); the RFQ moves to failed. This cannot be undone.',
      confirmLabel: 'Revert fill',
      run: async () => {
        await call('revert', { path: { rfq_id: rfq.rfq_id } });
        rfqs.reload();
      },
    });

  return (
    <>
      <Section title="RFQs" id="rfqs">
        <label>
          State{' '}
          <select value={state} onChange={(e) => (setState(e.currentTarget.value), setCursors([]))}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        <ErrorText error={rfqs.error} />
        <table data-testid="rfq-table">
          <RfqTableHead />
          <tbody>
            {rows.map((r) => (
              <RfqRow key={r.rfq_id} r={r} selected={selected === r.rfq_id} onSelect={() => setSelected(r.rfq_id)} onRevert={() => revert(r)} />
            ))}
          </tbody>
        </table>
        <div class="row">
          <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
          <button disabled={rows.length < PAGE} onClick={() => setCursors([...cursors, rows[rows.length - 1].rfq_id])}>
            Older
          </button>
          <span class="muted">{cursors.length === 0 ? 'Newest first, live' : `Page ${cursors.length + 1}`}</span>
        </div>
      </Section>
      {selected && <RfqEvents rfqId={selected} events={events} />}
    </>
  );
}
