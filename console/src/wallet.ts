import bs58 from 'bs58';
import { call } from './api';

/** The injected Solana provider (Phantom, Solflare, Backpack: `window.solana`). */
interface SolanaProvider {
  connect(): Promise<{ publicKey: { toBase58?(): string; toString(): string } }>;
  signMessage(message: Uint8Array, encoding?: string): Promise<{ signature: Uint8Array } | Uint8Array>;
}

export const walletProvider = (): SolanaProvider | null => ((window as unknown as { solana?: SolanaProvider }).solana ?? null);

/**
 * Signs in with the browser wallet as any client would (design.md section 3): nonce, sign the
 * exact message, session. Resolves with the session; the caller checks it is an admin's.
 */
export async function walletSignIn(provider: SolanaProvider): Promise<{ session_token: string; roles: string[]; account_id: number | null; wallet: string }> {
  const { publicKey } = await provider.connect();
  const wallet = publicKey.toBase58 ? publicKey.toBase58() : publicKey.toString();
  const challenge = await call<{ message: string }>('nonce', { body: { wallet }, bearer: null });
  const signed = await provider.signMessage(new TextEncoder().encode(challenge.message), 'utf8');
  const signature = signed instanceof Uint8Array ? signed : signed.signature;
  return call('session', { body: { wallet, message: challenge.message, signature: bs58.encode(signature) }, bearer: null });
}
