import bs58 from 'bs58';
import { call } from './api';

/** A wallet that can sign the sign-in message: an injected `window.solana`, or a Wallet Standard wallet. */
export interface SigningWallet {
  name: string;
  /** Connects and resolves with the base58 address. */
  connect(): Promise<string>;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** The injected Solana provider (Phantom, Solflare, Backpack: `window.solana`). */
interface InjectedProvider {
  connect(): Promise<{ publicKey: { toBase58?(): string; toString(): string } }>;
  signMessage(message: Uint8Array, encoding?: string): Promise<{ signature: Uint8Array } | Uint8Array>;
}

/** The parts of a Wallet Standard wallet (github.com/wallet-standard) that sign-in uses. */
interface StandardWallet {
  name: string;
  features: {
    'standard:connect': { connect(): Promise<{ accounts: readonly { address: string }[] }> };
    'solana:signMessage': { signMessage(input: { account: { address: string } | null; message: Uint8Array }): Promise<readonly { signature: Uint8Array }[]> };
  };
}

const standardWallets: StandardWallet[] = [];
const onChange = new Set<() => void>();
const registry = {
  register: (...wallets: StandardWallet[]) => {
    for (const w of wallets)
      if (w.features?.['standard:connect'] && w.features?.['solana:signMessage'] && !standardWallets.includes(w)) standardWallets.push(w);
    onChange.forEach((f) => f());
    return () => undefined;
  },
};
// The Wallet Standard handshake, both ways round: wallets that loaded first answer app-ready; those that load later announce themselves.
window.addEventListener('wallet-standard:register-wallet', (event) => (event as CustomEvent<(api: typeof registry) => void>).detail(registry));
window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: registry }));

export const onWalletsChanged = (listener: () => void) => (onChange.add(listener), () => onChange.delete(listener));

function fromStandard(wallet: StandardWallet): SigningWallet {
  let account: { address: string } | null = null;
  return {
    name: wallet.name,
    async connect() {
      const { accounts } = await wallet.features['standard:connect'].connect();
      account = accounts[0];
      if (!account) throw new Error(`${wallet.name} gave no account`);
      return account.address;
    },
    async signMessage(message) {
      const [signed] = await wallet.features['solana:signMessage'].signMessage({ account, message });
      return signed.signature;
    },
  };
}

function fromInjected(provider: InjectedProvider): SigningWallet {
  return {
    name: 'browser wallet',
    async connect() {
      const { publicKey } = await provider.connect();
      return publicKey.toBase58 ? publicKey.toBase58() : publicKey.toString();
    },
    async signMessage(message) {
      const signed = await provider.signMessage(message, 'utf8');
      return signed instanceof Uint8Array ? signed : signed.signature;
    },
  };
}

/** Every wallet the page can sign in with now: Wallet Standard wallets first, then `window.solana`. */
export function availableWallets(): SigningWallet[] {
  const injected = (window as unknown as { solana?: InjectedProvider }).solana;
  return [...standardWallets.map(fromStandard), ...(injected ? [fromInjected(injected)] : [])];
}

/**
 * Signs in with a wallet as any client would (docs/spec/design.md section 3): nonce, sign the exact
 * message, session. Resolves with the session; the caller checks it is an admin's.
 */
export async function walletSignIn(wallet: SigningWallet): Promise<{ session_token: string; roles: string[]; account_id: number | null; wallet: string }> {
  const address = await wallet.connect();
  const challenge = await call<{ message: string }>('nonce', { body: { wallet: address }, bearer: null });
  const signature = await wallet.signMessage(new TextEncoder().encode(challenge.message));
  return call('session', { body: { wallet: address, message: challenge.message, signature: bs58.encode(signature) }, bearer: null });
}
