import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { SIGNED_OUT_EVENT, call, describeError, token } from './api';
import { AccountsPage } from './pages/accounts';
import { AuditPage } from './pages/audit';
import { CompetitionPage } from './pages/competition';
import { MakerLimitsPage } from './pages/maker-limits';
import { MakersPage } from './pages/makers';
import { OverviewPage } from './pages/overview';
import { RfqsPage } from './pages/rfqs';
import { RiskPage } from './pages/risk';
import { RoundsPage } from './pages/rounds';
import { ConfirmDialog, type PendingAction, formValues } from './ui';
import { type SigningWallet, availableWallets, onWalletsChanged, walletSignIn } from './wallet';
import './styles.css';

const PAGES = [
  ['overview', 'Overview'],
  ['rounds', 'Rounds'],
  ['accounts', 'Accounts'],
  ['rfqs', 'RFQs'],
  ['competition', 'Competitive RFQs'],
  ['makers', 'Makers'],
  ['risk', 'Risk and journal'],
  ['maker-limits', 'Maker limits'],
  ['audit', 'Audit'],
] as const;
type Page = (typeof PAGES)[number][0];

/** `#/<page>` or `#/<page>/<id>` (`#/accounts/42` opens account 42, `#/maker-limits/42` maker 42). */
const pageFromHash = (): Page => {
  const name = location.hash.replace(/^#\/?/, '').split('/')[0];
  return PAGES.find(([p]) => p === name)?.[0] ?? 'overview';
};
const idFromHash = (): string | null => location.hash.replace(/^#\/?/, '').split('/')[1] ?? null;

/** The browser wallets found, again when one registers later. */
function useWallets(): SigningWallet[] {
  const [wallets, setWallets] = useState<SigningWallet[]>(availableWallets());
  useEffect(() => {
    // Wallet extensions may inject or register after the page's scripts ran.
    const refresh = () => setWallets(availableWallets());
    const timer = window.setTimeout(refresh, 500);
    const stop = onWalletsChanged(refresh);
    return () => (window.clearTimeout(timer), stop());
  }, []);
  return wallets;
}

/** The admin token, or an admin account's wallet through the browser wallet. */
function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason: string | null }) {
  const [error, setError] = useState<string | null>(reason);
  const wallets = useWallets();

  const useToken = async (candidate: string) => {
    try {
      // An admin read decides: the token is good when the server takes it.
      await call('overview', { bearer: candidate });
      token.set(candidate);
      onSignedIn();
    } catch (e) {
      setError(`Sign-in refused (${describeError(e)})`);
    }
  };
  const withWallet = async (wallet: SigningWallet) => {
    setError(null);
    try {
      const session = await walletSignIn(wallet);
      if (!session.roles.includes('admin')) return setError(`The wallet ${session.wallet} is not an admin's (roles: ${session.roles.join(', ') || 'none'})`);
      await useToken(session.session_token);
    } catch (e) {
      setError(`Wallet sign-in failed (${describeError(e)})`);
    }
  };
  return (
    <main class="signin">
      <h1>Legwork operator console</h1>
      <form
        onSubmit={(event) => {
          const { admin_token } = formValues(event);
          void useToken(admin_token.trim());
        }}
        aria-label="Sign in with the admin token"
      >
        <label>
          Admin token <input name="admin_token" type="password" autoComplete="off" required size={40} />
        </label>
        <button type="submit">Sign in</button>
      </form>
      {wallets.map((wallet, i) => (
        <p key={`${wallet.name}-${i}`}>
          <button onClick={() => withWallet(wallet)} data-testid="wallet-signin">
            Sign in with {wallet.name}
          </button>
        </p>
      ))}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(token.get() !== null);
  const [page, setPage] = useState<Page>(pageFromHash());
  const [pageId, setPageId] = useState<string | null>(idFromHash());
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);
  useEffect(() => {
    const onSignedOut = (event: Event) => {
      setSignedOutReason(`Signed out: the server refused the token (${(event as CustomEvent<string>).detail})`);
      setSignedIn(false);
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);
  useEffect(() => {
    // A notice belongs to the page it was given on.
    const onHash = () => (setPage(pageFromHash()), setPageId(idFromHash()), setMessage(null));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (!signedIn) return <SignIn reason={signedOutReason} onSignedIn={() => (setSignedOutReason(null), setSignedIn(true))} />;
  const notify = (text: string, error = false) => setMessage({ text, error });
  return (
    <>
      <TopBar page={page} onSignOut={() => setSignedIn(false)} />
      <main id="page" data-page={page}>
        <h1 class="page-title">{PAGES.find(([p]) => p === page)![1]}</h1>
        {message && (
          <p class={message.error ? 'error' : 'notice'} role="status" data-testid="notice">
            {message.text}
          </p>
        )}
        <CurrentPage page={page} pageId={pageId} confirm={setPending} notify={notify} />
      </main>
      <ConfirmDialog
        action={pending}
        onDone={(text, error) => {
          setPending(null);
          if (text) notify(text, error);
        }}
      />
    </>
  );
}

function TopBar({ page, onSignOut }: { page: Page; onSignOut: () => void }) {
  return (
    <header class="top">
      <span class="brand">Legwork console</span>
      <nav aria-label="Pages">
        {PAGES.map(([p, label]) => (
          <a key={p} href={`#/${p}`} aria-current={page === p ? 'page' : undefined}>
            {label}
          </a>
        ))}
        <a href="/docs/json-rpc">JSON-RPC reference</a>
      </nav>
      <button
        class="link"
        onClick={() => {
          token.clear();
          onSignOut();
        }}
      >
        Sign out
      </button>
    </header>
  );
}

function CurrentPage({
  page,
  pageId,
  confirm,
  notify,
}: {
  page: Page;
  pageId: string | null;
  confirm: (action: PendingAction) => void;
  notify: (text: string, error?: boolean) => void;
}) {
  return (
    <>
      {page === 'overview' && <OverviewPage />}
      {page === 'rounds' && <RoundsPage confirm={confirm} notify={notify} />}
      {page === 'accounts' && <AccountsPage key={pageId ?? ''} initial={pageId} confirm={confirm} notify={notify} />}
      {page === 'rfqs' && <RfqsPage confirm={confirm} />}
      {page === 'competition' && <CompetitionPage initial={pageId} />}
      {page === 'makers' && <MakersPage />}
      {page === 'risk' && <RiskPage />}
      {page === 'maker-limits' && <MakerLimitsPage key={pageId ?? ''} initial={pageId} confirm={confirm} />}
      {page === 'audit' && <AuditPage />}
    </>
  );
}

render(<App />, document.getElementById('root')!);
