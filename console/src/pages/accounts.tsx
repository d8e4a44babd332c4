import { useState } from 'preact/hooks';
import { call, describeError } from '../api';
import { type PendingAction, ErrorText, Section, formValues } from '../ui';
import { type Account, AccountDetail } from './account-detail';
import { ROLES } from '../wire';

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
  return (
    <>
      <div class="grid">
        <FindAccount onFound={setSelected} />
        <CreateAccount notify={notify} onCreated={setSelected} />
      </div>
      {selected !== null && <AccountDetail key={selected} accountId={selected} confirm={confirm} notify={notify} />}
    </>
  );
}

/** By account id (digits) or by wallet. */
function FindAccount({ onFound }: { onFound: (accountId: number) => void }) {
  const [searchError, setSearchError] = useState<string | null>(null);
  const search = async (event: Event) => {
    const { q } = formValues(event);
    const text = q.trim();
    setSearchError(null);
    try {
      if (/^[1-9][0-9]{0,15}$/.test(text)) {
        const account = await call<Account>('account', { path: { account_id: text } });
        onFound(account.account_id);
      } else {
        const { accounts } = await call<{ accounts: Account[] }>('accountSearch', { query: { wallet: text } });
        if (accounts.length === 0) setSearchError('No account has this wallet');
        else onFound(accounts[0].account_id);
      }
    } catch (e) {
      setSearchError(describeError(e));
    }
  };
  return (
    <Section title="Find an account" id="find">
      <form class="inline" onSubmit={search} role="search" aria-label="Find an account">
        <label>
          Wallet or account id <input name="q" required size={46} />
        </label>
        <button type="submit">Find</button>
      </form>
      <ErrorText error={searchError} />
    </Section>
  );
}

function CreateAccount({ notify, onCreated }: { notify: (m: string, error?: boolean) => void; onCreated: (accountId: number) => void }) {
  const create = async (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    const roles = ROLES.filter((r) => (form.elements.namedItem(`role-${r}`) as HTMLInputElement).checked);
    try {
      const account = await call<Account>('createAccount', { body: { wallet: v.wallet.trim(), roles } });
      notify(`Account ${account.account_id} created`);
      onCreated(account.account_id);
    } catch (e) {
      notify(`Create account: ${describeError(e)}`, true);
    }
  };
  return (
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
  );
}
