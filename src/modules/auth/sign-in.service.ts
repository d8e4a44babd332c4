import { Inject, Injectable } from '@nestjs/common';
import { Ed25519Verifier, decodeBase58Signature, parseWallet, signInMessage } from '@legwork/protocol';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { AccountsService } from '../accounts/accounts.service';
import { AuthAttemptsService } from './auth-attempts.service';
import type { Role } from '../../common/access/access';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { parseWalletParam } from './wallet-param';

export interface SignInResult {
  wallet: string;
  account_id: number | null;
  roles: Role[];
  session_token: string;
}

/** The account of a wallet as AccountsService reads it. */
type Account = Awaited<ReturnType<AccountsService['findByWallet']>>;

const NONCE_LINE = /\nNonce: ([0-9a-f]{32})$/;

/** Sign-in with a wallet signature (SIWS), and session resume. Same result over HTTP and WebSocket. */
@Injectable()
export class SignInService {
  constructor(
    private readonly nonces: NonceService,
    private readonly sessions: SessionService,
    private readonly accounts: AccountsService,
    private readonly verifier: Ed25519Verifier,
    private readonly attempts: AuthAttemptsService,
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
    const result = this.session(wallet, await this.accounts.findByWallet(wallet));
    signedInLine('signature', result, clientIp);
    return result;
  }

  /**
   * A new token for the wallet of a valid one, with roles re-read from the database, keeping the
   * session's `auth_time` (docs/spec/design.md section 16). SESSION_INVALID: a token past
   * SESSION_MAX_SECONDS, a token revoked (issued at or before its account's revoke), and a token
   * issued for a wallet without an account whose account exists now (it would slip past a
   * revoke of that account: the wallet signs in again).
   */
  async resume(token: unknown, clientIp: string): Promise<SignInResult> {
    await this.attempts.admit(clientIp);
    // An absent or non-string session_token is a bad param (-32602); a string that is no valid token, SESSION_INVALID.
    if (typeof token !== 'string') throw new AppError('INVALID_PARAMS', 'session_token must be a string');
    const { principal, authTime } = this.sessions.resumable(token);
    const wallet = principal.wallet as string;
    // Read from the database, not the access cache: the revoke check at resume is the freshest there is.
    const account = await this.accounts.findByWallet(wallet);
    if ((account?.id ?? null) !== principal.accountId) {
      throw new AppError('SESSION_INVALID', 'this session was issued for another account of the wallet (or none); sign in again');
    }
    if (account && (principal.issuedAt as number) <= account.sessionsRevokedAt) throw new AppError('SESSION_INVALID', 'session token has been revoked');
    const result = this.session(wallet, account, authTime);
    signedInLine('session_resume', result, clientIp);
    return result;
  }

  private session(wallet: string, account: Account, authTime?: number): SignInResult {
    const accountId = account?.id ?? null;
    const roles = account?.roles ?? [];
    // Issued after the last revoke, even within its second (iat is whole seconds).
    const notBefore = account ? account.sessionsRevokedAt + 1 : 0;
    return { wallet, account_id: accountId, roles, session_token: this.sessions.issue(wallet, accountId, roles, notBefore, authTime) };
  }
}

/** docs/spec/design.md section 16: every sign-in is logged with its actor (account and wallet). */
function signedInLine(via: 'signature' | 'session_resume', result: SignInResult, clientIp: string): void {
  logger.event('info', 'signed in', { via, account_id: result.account_id, wallet: result.wallet, client_ip: clientIp }, 'Auth');
}
