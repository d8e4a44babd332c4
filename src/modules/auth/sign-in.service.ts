import { Inject, Injectable } from '@nestjs/common';
import { Ed25519Verifier, decodeBase58Signature, parseWallet, signInMessage } from '@legwork/protocol';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { AccountAccess } from '../accounts/account-access.service';
import { AccountsService } from '../accounts/accounts.service';
import { AuthAttempts } from './auth-attempts.service';
import type { Role } from './access';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { parseWalletParam } from './wallet-param';

export interface SignInResult {
  wallet: string;
  account_id: number | null;
  roles: Role[];
  session_token: string;
}

const NONCE_LINE = /\nNonce: ([0-9a-f]{32})$/;

/** Sign-in with a wallet signature (SIWS), and session resume. Same result over HTTP and WebSocket. */
@Injectable()
export class SignInService {
  constructor(
    private readonly nonces: NonceService,
    private readonly sessions: SessionService,
    private readonly accounts: AccountsService,
    private readonly verifier: Ed25519Verifier,
    private readonly attempts: AuthAttempts,
    private readonly access: AccountAccess,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `clientIp` counts the attempt against AUTH_RATE_PER_MINUTE first, whatever its outcome. */
  async signIn(params: { wallet?: unknown; signature?: unknown; message?: unknown }, clientIp: string): Promise<SignInResult> {
    await this.attempts.admit(clientIp);
    const wallet = parseWalletParam(params.wallet);
    if (typeof params.message !== 'string' || params.message.length > 512) throw new AppError('INVALID_PARAMS', 'message must be the signed text');
    if (typeof params.signature !== 'string') throw new AppError('INVALID_PARAMS', 'signature must be base58 text');
    // The nonce is used up by this attempt whatever its outcome.
    const nonce = NONCE_LINE.exec(params.message)?.[1];
    const live = nonce !== undefined && (await this.nonces.consume(wallet, nonce));
    if (!live) throw new AppError('AUTH_INVALID_NONCE', 'nonce is unknown, expired or used');
    if (params.message !== signInMessage(this.config.serviceName, wallet, nonce)) {
      throw new AppError('AUTH_INVALID_NONCE', 'message is not the exact sign-in text');
    }
    const signature = decodeBase58Signature(params.signature);
    if (!signature || !this.verifier.verify(parseWallet(wallet), Buffer.from(params.message, 'utf8'), signature)) {
      throw new AppError('AUTH_INVALID_SIGNATURE', 'signature does not verify');
    }
    return this.session(wallet);
  }

  /**
   * A new token for the wallet of a valid one, with account and roles re-read from the database.
   * A token revoked (issued at or before its account's revoke) is SESSION_INVALID.
   */
  async resume(token: unknown, clientIp: string): Promise<SignInResult> {
    await this.attempts.admit(clientIp);
    const principal = this.sessions.verify(token, { remember: false });
    if (principal.accountId !== null && (await this.access.current(principal)) === 'revoked') {
      throw new AppError('SESSION_INVALID', 'session token has been revoked');
    }
    return this.session(principal.wallet as string);
  }

  private async session(wallet: string): Promise<SignInResult> {
    const account = await this.accounts.findByWallet(wallet);
    const accountId = account?.id ?? null;
    const roles = account?.roles ?? [];
    // Issued after the last revoke, even within its second (iat is whole seconds).
    const notBefore = account ? account.sessionsRevokedAt + 1 : 0;
    return { wallet, account_id: accountId, roles, session_token: this.sessions.issue(wallet, accountId, roles, notBefore) };
  }
}
