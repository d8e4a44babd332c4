import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api';
import { deskSignIn, deskToken } from '../rpc';
import { ErrorText, Section, formValues } from '../ui';
import { type SigningWallet, availableWallets, walletSignIn } from '../wallet';

export interface DeskWho {
  wallet: string;
  roles: string[];
  account_id: number | null;
}

/**
 * The desk session the competition pages act with: the taker's or maker's own session (a session
 * token from any client, or a browser wallet signed in here, whatever its roles), beside the
 * operator's sign-in. `who` is null until it is signed in.
 */
export function useDesk(): {
  who: DeskWho | null;
  error: string | null;
  signIn: (token: string) => Promise<void>;
  signOut: () => void;
  fail: (message: string) => void;
} {
  const [who, setWho] = useState<DeskWho | null>(null);
  const [error, setError] = useState<string | null>(null);
  const signIn = async (token: string) => {
    setError(null);
    try {
      setWho(await deskSignIn(token));
    } catch (e) {
      setWho(null);
      setError(`Desk sign-in refused (${describeError(e)})`);
    }
  };
  useEffect(() => {
    const stored = deskToken.get();
    if (stored) void signIn(stored);
  }, []);
  return { who, error, signIn, signOut: () => (deskToken.clear(), setWho(null)), fail: setError };
}

/** Who the desk is, or the form that signs it in. */
export function DeskSession({ desk }: { desk: ReturnType<typeof useDesk> }) {
  const [wallets] = useState<SigningWallet[]>(availableWallets());
  const withWallet = async (wallet: SigningWallet) => {
    try {
      await desk.signIn((await walletSignIn(wallet)).session_token);
    } catch (e) {
      desk.fail(`Wallet sign-in failed (${describeError(e)})`);
    }
  };
  if (desk.who)
    return (
      <p class="row" data-testid="desk-who">
        <span>
          Desk: <span class="mono">{desk.who.wallet}</span> ({desk.who.roles.join(', ') || 'no roles'})
        </span>
        <button class="link" onClick={desk.signOut}>
          Leave the desk session
        </button>
      </p>
    );
  return (
    <Section title="Desk session" id="desk">
      <p class="muted">These pages act as a taker or a maker: sign in with that account's session, not the operator's.</p>
      <form aria-label="Desk session" onSubmit={(event) => void desk.signIn(formValues(event).session_token.trim())}>
        <label>
          Session token <input name="session_token" type="password" autoComplete="off" required size={40} />
        </label>
        <button type="submit">Use session</button>
      </form>
      {wallets.map((wallet, i) => (
        <p key={`${wallet.name}-${i}`}>
          <button onClick={() => withWallet(wallet)}>Desk sign-in with {wallet.name}</button>
        </p>
      ))}
      <ErrorText error={desk.error} />
    </Section>
  );
}
