import type { EventEmitter } from 'node:events';
import type { LegworkClientEvents } from './client-options';
import { LegworkRpcError } from './errors';
import { type Keypair, messageToSign } from './keys';
import type { RpcTransport } from './rpc-transport';
import type { AuthResult, NonceResult } from './types';

/**
 * The session of {@link LegworkClient}: the token of the last sign-in or resume (to resume after a
 * reconnection) and the key it signed in with (to sign in again when the token can no longer be
 * resumed).
 */
export class Session {
  private token: string | null = null;
  private keypair: Keypair | null = null;
  private lastAuth: AuthResult | null = null;

  constructor(
    private readonly events: EventEmitter<LegworkClientEvents>,
    private readonly transport: RpcTransport,
    private readonly serviceName: string | undefined,
  ) {}

  get sessionToken(): string | null {
    return this.token;
  }

  get current(): AuthResult | null {
    return this.lastAuth;
  }

  /** The key of the last sign-in (accepts sign with it). */
  get signingKey(): Keypair | null {
    return this.keypair;
  }

  async signIn(keypair: Keypair, internal: boolean): Promise<AuthResult> {
    const nonce = await this.transport.request<NonceResult>('public/get_nonce', { wallet: keypair.wallet }, internal);
    const message = messageToSign(nonce, keypair.wallet, this.serviceName);
    const result = await this.transport.request<AuthResult>(
      'public/auth',
      { wallet: keypair.wallet, signature: keypair.signBase58(message), message },
      internal,
    );
    this.keypair = keypair;
    this.remember(result);
    return result;
  }

  async resume(sessionToken: string): Promise<AuthResult> {
    const result = await this.transport.request<AuthResult>('public/session_resume', { session_token: sessionToken }, false);
    this.remember(result);
    return result;
  }

  /**
   * On a fresh connection: resume the session (or sign in again with the remembered key). A
   * connection failure throws (the loop retries); a refusal by the server is reported with
   * `resumeError` and the client goes on without it.
   */
  async restore(): Promise<AuthResult | null> {
    let session: AuthResult | null = null;
    if (this.token) {
      try {
        session = await this.transport.request<AuthResult>('public/session_resume', { session_token: this.token }, true);
        this.remember(session);
      } catch (error) {
        if (!(error instanceof LegworkRpcError)) throw error;
        if (this.keypair) {
          session = await this.signIn(this.keypair, true).catch((e: Error) => {
            if (!(e instanceof LegworkRpcError)) throw e;
            this.events.emit('resumeError', e);
            return null;
          });
        } else {
          this.events.emit('resumeError', error);
        }
        if (!session) {
          this.token = null;
          this.lastAuth = null;
        }
      }
    }
    return session;
  }

  private remember(result: AuthResult): void {
    this.lastAuth = result;
    this.token = result.session_token;
  }
}
