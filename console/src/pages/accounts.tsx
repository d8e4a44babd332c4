import { useEffect, useState } from 'preact/hooks';
import { call, describeError } from '../api';
import { Chart } from '../chart';
import { payoffCurve, type PositionRow, roundsOf } from '../payoff';
import { type ExchangeKey, type Receipt, checkReceipt } from '../receipts';
import { trimDecimal } from '../money';
import { ErrorText, type PendingAction, Section, formValues, time, usePoll } from '../ui';
import { ROLES } from '../wire';

/** A row of GET /query/rfq-positions: what the payoff chart reads, and the average price (null with no opening fills left). */
type OpenPosition = PositionRow & { average_price: string | null };

interface Account {
  account_id: number;
  wallet: string;
  roles: string[];
  created_at: string;
  balance?: { total: string; locked: string; available: string };
}
interface FillRow {
  fill_id: string;
  rfq_id: string;
  role: string;
  side: string;
  legs: Array<{ instrument: string; quantity: string }>;
  price: string;
  fee: string;
  filled_at: number;
  reverted: boolean;
  receipt?: Receipt | null;
  revert_receipt?: Receipt | null;
}

let keys: Promise<ExchangeKey[]> | null = null;
/** The exchange's published keys, read once per page load (rotation appends; a reload picks it up). */
const exchangeKeys = () => (keys ??= call<{ keys: ExchangeKey[] }>('keys', { bearer: null }).then((k) => k.keys));

/** A receipt checked here, in the browser (hash, signature, key, that it is this fill's; on a taker row, this taker's). */
function ReceiptCell({ receipt, fillId, kind, taker }: { receipt: Receipt | null | undefined; fillId: string; kind: 0 | 1; taker?: string }) {
  const [problem, setProblem] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    if (!receipt) return;
    let live = true;
    exchangeKeys()
      .then((k) => checkReceipt(receipt, k, fillId, kind, taker))
      .then(
        (p) => live && setProblem(p),
        (e) => live && setProblem(describeError(e)),
      );
    return () => {
      live = false;
    };
  }, [receipt?.hash, taker]);
  if (!receipt) return <span class="muted">—</span>;
  const label = `#${receipt.journal_seq}`;
  if (problem === undefined) return <span>{label} …</span>;
  return problem === null ? (
    <span class="ok" title={receipt.hash} data-testid="receipt-ok">
      {label} verified
    </span>
  ) : (
    <span class="bad" data-testid="receipt-bad">
      {label} not valid: {problem}
    </span>
  );
}

/** Search, create, and one account's roles, transfers, balances, positions, fills and payoff. */
export function AccountsPage({
  confirm,
  notify,
  initial = null,
}: {
  confirm: (a: PendingAction) => void;
  notify: (m: string, error?: boolean) => void;
  initial?: string | null;
}) {
  const [selected, setSelected] = useState<number | null>(initial && /^[1-9][0-9]{0,15}$/.test(initial) ? Number(initial) : null);
  const [searchError, setSearchError] = useState<string | null>(null);

  const search = async (event: Event) => {
    const { q } = formValues(event);
    const text = q.trim();
    setSearchError(null);
    try {
      if (/^[1-9][0-9]{0,15}$/.test(text)) {
        const account = await call<Account>('account', { path: { account_id: text } });
        setSelected(account.account_id);
      } else {
        const { accounts } = await call<{ accounts: Account[] }>('accountSearch', { query: { wallet: text } });
        if (accounts.length === 0) setSearchError('No account has this wallet');
        else setSelected(accounts[0].account_id);
      }
    } catch (e) {
      setSearchError(describeError(e));
    }
  };

  const create = async (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    const roles = ROLES.filter((r) => (form.elements.namedItem(`role-${r}`) as HTMLInputElement).checked);
    try {
      const account = await call<Account>('createAccount', { body: { wallet: v.wallet.trim(), roles } });
      notify(`Account ${account.account_id} created`);
      setSelected(account.account_id);
    } catch (e) {
      notify(`Create account: ${describeError(e)}`, true);
    }
  };

  return (
    <>
      <div class="grid">
        <Section title="Find an account" id="find">
          <form class="inline" onSubmit={search} role="search" aria-label="Find an account">
            <label>
              Wallet or account id <input name="q" required size={46} />
            </label>
            <button type="submit">Find</button>
          </form>
          <ErrorText error={searchError} />
        </Section>
        <Section title="Create an account" id="create">
          <form class="inline" onSubmit={create} aria-label="Create an account">
            <label>
              Wallet <input name="wallet" required size={46} />
            </label>
            <fieldset>
              <legend>Roles</legend>
              {ROLES.map((r) => (
                <label key={r}>
                  <input type="checkbox" name={`role-${r}`} defaultChecked={r === 'taker'} /> {r}
                </label>
              ))}
            </fieldset>
            <button type="submit">Create account</button>
          </form>
        </Section>
      </div>
      {selected !== null && <AccountDetail key={selected} accountId={selected} confirm={confirm} notify={notify} />}
    </>
  );
}

function AccountDetail({
  accountId,
  confirm,
  notify,
}: {
  accountId: number;
  confirm: (a: PendingAction) => void;
  notify: (m: string, error?: boolean) => void;
}) {
  const account = usePoll(() => call<Account>('account', { path: { account_id: accountId } }), 2000);
  const positions = usePoll(() => call<{ rows: OpenPosition[] }>('rfqPositions', { query: { account_id: accountId, status: 'open' } }), 3000);
  const fills = usePoll(() => call<{ rows: FillRow[] }>('rfqFills', { query: { account_id: accountId, limit: 50 } }), 3000);
  const a = account.data;

  const transfer = (kind: 'deposit' | 'withdraw') => async (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    try {
      // The reference is the idempotency key: one per submitted form, so a double click is one transfer.
      const reference = v.reference.trim() || `console-${kind}-${crypto.randomUUID()}`;
      await call(kind, { path: { account_id: accountId }, body: { amount: v.amount.trim(), reference } });
      notify(`${kind === 'deposit' ? 'Deposited' : 'Withdrew'} ${v.amount} USDC (account ${accountId})`);
      form.reset();
      account.reload();
    } catch (e) {
      notify(`${kind}: ${describeError(e)}`, true);
    }
  };

  const saveRoles = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    event.preventDefault();
    const roles = ROLES.filter((r) => (form.elements.namedItem(`set-${r}`) as HTMLInputElement).checked);
    confirm({
      title: `Set the roles of account ${accountId}`,
      detail: `New roles: ${roles.join(', ') || 'none'}. Live sessions act with them within a second.`,
      confirmLabel: 'Set roles',
      run: async () => {
        await call('setRoles', { path: { account_id: accountId }, body: { roles } });
        account.reload();
      },
    });
  };

  return (
    <Section title={`Account ${accountId}`} id="account">
      <ErrorText error={account.error} />
      {a && (
        <>
          <dl class="stats" data-testid="account">
            <div>
              <dt>Wallet</dt>
              <dd class="mono">{a.wallet}</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd class="num" data-testid="balance-total">
                {trimDecimal(a.balance?.total)}
              </dd>
            </div>
            <div>
              <dt>Locked</dt>
              <dd class="num">{trimDecimal(a.balance?.locked)}</dd>
            </div>
            <div>
              <dt>Available</dt>
              <dd class="num">{trimDecimal(a.balance?.available)}</dd>
            </div>
          </dl>
          <form class="inline" onSubmit={saveRoles} aria-label="Roles">
            <fieldset>
              <legend>Roles</legend>
              {ROLES.map((r) => (
                <label key={`${r}-${a.roles.join()}`}>
                  <input type="checkbox" name={`set-${r}`} defaultChecked={a.roles.includes(r)} /> {r}
                </label>
              ))}
            </fieldset>
            <button type="submit">Save roles</button>
            <button
              type="button"
              class="danger"
              onClick={() =>
                confirm({
                  title: `Revoke the sessions of account ${accountId}`,
                  detail:
                    'Every session token issued until now is refused, and its live connections are signed out within a second. The wallet can sign in again.',
                  confirmLabel: 'Revoke sessions',
                  run: () => call('revokeSessions', { path: { account_id: accountId } }),
                })
              }
            >
              Revoke sessions
            </button>
          </form>
          <div class="grid">
            {(['deposit', 'withdraw'] as const).map((kind) => (
              <form key={kind} class="inline" onSubmit={transfer(kind)} aria-label={kind === 'deposit' ? 'Deposit' : 'Withdraw'}>
                <label>
                  {kind === 'deposit' ? 'Deposit' : 'Withdraw'} amount (USDC) <input name="amount" required inputMode="decimal" size={10} />
                </label>
                <label>
                  Reference <input name="reference" size={16} placeholder="chain tx (optional)" />
                </label>
                <button type="submit">{kind === 'deposit' ? 'Deposit' : 'Withdraw'}</button>
              </form>
            ))}
          </div>
        </>
      )}
      <h3>Open positions</h3>
      <ErrorText error={positions.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Instrument</th>
            <th scope="col">Quantity</th>
            <th scope="col">Average price</th>
          </tr>
        </thead>
        <tbody>
          {(positions.data?.rows ?? []).map((p) => (
            <tr key={p.instrument}>
              <td>{p.instrument}</td>
              <td class="num">{trimDecimal(p.quantity)}</td>
              <td class="num">{trimDecimal(p.average_price)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {roundsOf(positions.data?.rows ?? []).map((round) => {
        const curve = payoffCurve(round);
        return (
          <div key={round.key} class="payoff" data-testid={`payoff-${round.key}`}>
            <h3>
              Payoff at expiry: {round.asset} {time(round.expiry)}
            </h3>
            <Chart
              label={`Payoff at expiry of the ${round.asset} ${time(round.expiry)} positions by settlement price`}
              x={curve.prices}
              y={curve.payoffs}
              xLabel="settlement price"
              yLabel="payoff (USDC)"
            />
          </div>
        );
      })}
      <h3>Fills</h3>
      <ErrorText error={fills.error} />
      <table data-testid="fills">
        <thead>
          <tr>
            <th scope="col">Fill</th>
            <th scope="col">RFQ</th>
            <th scope="col">Role</th>
            <th scope="col">Side</th>
            <th scope="col">Legs</th>
            <th scope="col">Price</th>
            <th scope="col">Fee</th>
            <th scope="col">Filled</th>
            <th scope="col">Receipt</th>
          </tr>
        </thead>
        <tbody>
          {(fills.data?.rows ?? []).map((f) => (
            <tr key={f.fill_id}>
              <td class="num">{f.fill_id}</td>
              <td class="mono">{f.rfq_id.slice(0, 12)}…</td>
              <td>{f.role}</td>
              <td>{f.side}</td>
              <td>{f.legs.map((l) => `${trimDecimal(l.quantity)} ${l.instrument}`).join(', ')}</td>
              <td class="num">{trimDecimal(f.price)}</td>
              <td class="num">{trimDecimal(f.fee)}</td>
              <td>
                {time(f.filled_at)}
                {f.reverted ? ' (reverted)' : ''}
              </td>
              <td>
                <ReceiptCell receipt={f.receipt} fillId={f.fill_id} kind={0} taker={f.role === 'taker' ? a?.wallet : undefined} />
                {f.revert_receipt && (
                  <>
                    {' '}
                    revert <ReceiptCell receipt={f.revert_receipt} fillId={f.fill_id} kind={1} taker={f.role === 'taker' ? a?.wallet : undefined} />
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
