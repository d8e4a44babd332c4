import { call, describeError } from '../api';
import { trimDecimal } from '../money';
import { type PendingAction, ErrorText, Section, formValues, usePoll } from '../ui';
import { AccountFills } from './account-fills';
import { AccountPositions } from './account-positions';
import { ROLES } from '../wire';

export interface Account {
  account_id: number;
  wallet: string;
  roles: string[];
  created_at: string;
  balance?: { total: string; locked: string; available: string };
}

type Confirm = (a: PendingAction) => void;
type Notify = (m: string, error?: boolean) => void;

/** One account: its wallet and balances, roles, sessions, transfers, then its positions and fills. */
export function AccountDetail({ accountId, confirm, notify }: { accountId: number; confirm: Confirm; notify: Notify }) {
  const account = usePoll(() => call<Account>('account', { path: { account_id: accountId } }), 2000);
  const a = account.data;
  return (
    <Section title={`Account ${accountId}`} id="account">
      <ErrorText error={account.error} />
      {a && (
        <>
          <Balances account={a} />
          <RolesForm accountId={accountId} account={a} confirm={confirm} reload={account.reload} />
          <TransferForms accountId={accountId} notify={notify} reload={account.reload} />
        </>
      )}
      <AccountPositions accountId={accountId} />
      <AccountFills accountId={accountId} wallet={a?.wallet} />
    </Section>
  );
}

function Balances({ account: a }: { account: Account }) {
  return (
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
  );
}

/** The account's roles (saved after a confirmation), and revoking its sessions. */
function RolesForm({ accountId, account: a, confirm, reload }: { accountId: number; account: Account; confirm: Confirm; reload: () => void }) {
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
        reload();
      },
    });
  };
  return (
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
            detail: 'Every session token issued until now is refused, and its live connections are signed out within a second. The wallet can sign in again.',
            confirmLabel: 'Revoke sessions',
            run: () => call('revokeSessions', { path: { account_id: accountId } }),
          })
        }
      >
        Revoke sessions
      </button>
    </form>
  );
}

function TransferForms({ accountId, notify, reload }: { accountId: number; notify: Notify; reload: () => void }) {
  const transfer = (kind: 'deposit' | 'withdraw') => async (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    try {
      // The reference is the idempotency key: one per submitted form, so a double click is one transfer.
      const reference = v.reference.trim() || `console-${kind}-${crypto.randomUUID()}`;
      await call(kind, { path: { account_id: accountId }, body: { amount: v.amount.trim(), reference } });
      notify(`${kind === 'deposit' ? 'Deposited' : 'Withdrew'} ${v.amount} USDC (account ${accountId})`);
      form.reset();
      reload();
    } catch (e) {
      notify(`${kind}: ${describeError(e)}`, true);
    }
  };
  return (
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
  );
}
