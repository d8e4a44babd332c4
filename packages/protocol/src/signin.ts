/**
 * The exact sign-in text a wallet signs (docs/spec/design.md section 3):
 * `Sign in to <service>\n\nWallet: <wallet>\nNonce: <nonce>`.
 */
export function signInMessage(serviceName: string, wallet: string, nonce: string): string {
  return `Sign in to ${serviceName}\n\nWallet: ${wallet}\nNonce: ${nonce}`;
}
