import { useState } from 'preact/hooks';
import { call } from '../api';
import {
  LIMIT_FIELDS,
  type LimitField,
  type MakerLimits,
  type MakerLimitsView,
  PROTECTION_FIELDS,
  effectiveLimits,
  fieldsFromLimits,
  formatAssetAmounts,
  formatLimit,
  limitsFromFields,
  makerLimitsBody,
  parseMakerLimitsView,
} from '../maker-limits';
import { trimDecimal } from '../money';
import { ErrorText, type PendingAction, Section, formValues, time, usePoll } from '../ui';

const ACCOUNT_ID = /^[1-9][0-9]{0,15}$/;

/** What the maker has out now and whether protection has frozen it. */
function Usage({ view }: { view: MakerLimitsView }) {
  const { usage, protection } = view;
  return (
    <dl class="stats" data-testid="maker-usage">
      <div>
        <dt>Protection</dt>
        <dd data-testid="maker-protection" class={protection.frozen ? 'bad' : 'ok'}>
          {protection.frozen ? `Frozen until ${protection.until === null ? 'reset' : time(protection.until)}` : 'Not frozen'}
        </dd>
      </div>
      <div>
        <dt>Window: fills / notional / delta</dt>
        <dd>
          {protection.window.fills} / {trimDecimal(protection.window.notional)} / {formatAssetAmounts(protection.window.delta) || '—'}
        </dd>
      </div>
      <div>
        <dt>Open quotes</dt>
        <dd class="num">{usage.open_quotes}</dd>
      </div>
      <div>
        <dt>Open notional</dt>
        <dd class="num">{trimDecimal(usage.open_notional)}</dd>
      </div>
      <div>
        <dt>Open delta</dt>
        <dd>{formatAssetAmounts(usage.open_delta) || '—'}</dd>
      </div>
      <div>
        <dt>Open vega</dt>
        <dd>{formatAssetAmounts(usage.open_vega) || '—'}</dd>
      </div>
    </dl>
  );
}

/** Each limit: the maker's own, the operator's ceiling, and the stricter of the two (in force). */
function LimitsTable({ view }: { view: MakerLimitsView }) {
  const inForce = effectiveLimits(view.limits, view.admin_limits);
  const row = (field: LimitField, force: MakerLimits) => (
    <tr key={field.name} data-limit={field.name}>
      <th scope="row">{field.label}</th>
      <td class="num">{formatLimit(view.limits, field)}</td>
      <td class="num">{formatLimit(view.admin_limits, field)}</td>
      <td class="num">{formatLimit(force, field)}</td>
    </tr>
  );
  return (
    <table data-testid="maker-limits">
      <thead>
        <tr>
          <th scope="col">Limit</th>
          <th scope="col">Maker's own</th>
          <th scope="col">Admin ceiling</th>
          <th scope="col">In force</th>
        </tr>
      </thead>
      <tbody>
        {LIMIT_FIELDS.map((f) => row(f, inForce))}
        {PROTECTION_FIELDS.map((f) => row(f, {}))}
      </tbody>
      <caption class="muted">In force: the stricter of the two, field by field (the server decides; protection is shown as each side set it).</caption>
    </table>
  );
}

/** The operator's ceiling as a form: an empty field is no limit. */
function CeilingForm({ accountId, view, onSave }: { accountId: number; view: MakerLimitsView; onSave: (limits: MakerLimits) => void }) {
  const [error, setError] = useState<string | null>(null);
  const values = fieldsFromLimits(view.admin_limits);
  const input = (f: LimitField) => (
    <label key={`${f.name}-${values[f.name]}`}>
      {f.label} <input name={f.name} defaultValue={values[f.name]} size={f.kind === 'assets' ? 18 : 10} placeholder="no limit" />
    </label>
  );
  return (
    <form
      class="inline"
      aria-label={`Admin ceiling of account ${accountId}`}
      data-testid="ceiling-form"
      onSubmit={(event) => {
        setError(null);
        try {
          onSave(limitsFromFields(formValues(event)));
        } catch (e) {
          setError((e as Error).message);
        }
      }}
    >
      <fieldset>
        <legend>Limits</legend>
        {LIMIT_FIELDS.map(input)}
      </fieldset>
      <fieldset>
        <legend>Protection after fills</legend>
        {PROTECTION_FIELDS.map(input)}
      </fieldset>
      <button type="submit">Save the ceiling</button>
      <ErrorText error={error} />
    </form>
  );
}

function MakerDetail({ accountId, confirm }: { accountId: number; confirm: (a: PendingAction) => void }) {
  const view = usePoll(async () => parseMakerLimitsView(await call('makerLimits', { path: { account_id: accountId } })), 3000);
  const save = (limits: MakerLimits) =>
    confirm({
      title: `Set the admin ceiling of maker ${accountId}`,
      detail: `New ceiling: ${JSON.stringify(limits)}. The stricter of the maker's limit and this one applies to its next quote; live quotes stay firm.`,
      confirmLabel: 'Set ceiling',
      run: async () => {
        await call('setMakerLimits', { path: { account_id: accountId }, body: makerLimitsBody(limits) });
        view.reload();
      },
    });
  return (
    <Section title={`Maker ${accountId}`} id="maker">
      <ErrorText error={view.error} />
      {view.data && (
        <>
          <Usage view={view.data} />
          <LimitsTable view={view.data} />
          <h3>Admin ceiling</h3>
          <CeilingForm accountId={accountId} view={view.data} onSave={save} />
        </>
      )}
    </Section>
  );
}

/** A maker's limits, the operator's ceiling over them, its usage and protection (docs/spec/design.md section 15). */
export function MakerLimitsPage({ confirm, initial = null }: { confirm: (a: PendingAction) => void; initial?: string | null }) {
  const [accountId, setAccountId] = useState<number | null>(initial && ACCOUNT_ID.test(initial) ? Number(initial) : null);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <Section title="Find a maker" id="find-maker">
        <form
          class="inline"
          aria-label="Find a maker"
          onSubmit={(event) => {
            const text = formValues(event).account_id.trim();
            setError(ACCOUNT_ID.test(text) ? null : 'An account id is a positive integer');
            if (ACCOUNT_ID.test(text)) setAccountId(Number(text));
          }}
        >
          <label>
            Maker account id <input name="account_id" required size={10} inputMode="numeric" />
          </label>
          <button type="submit">Show</button>
        </form>
        <ErrorText error={error} />
      </Section>
      {accountId !== null && <MakerDetail key={accountId} accountId={accountId} confirm={confirm} />}
    </>
  );
}
