import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { type AuthResult, HttpError, type Keypair, LegworkClient, LegworkHttp, LegworkRpcError } from '@legwork/sdk';
import { UsageError, nowSeconds, wsUrlOf } from './common';

/**
 * Session tokens kept between runs, per server and wallet (`~/.cache/legwork/sessions.json`, mode
 * 0600; `LEGWORK_SESSION_CACHE` moves it, `--no-cache` skips it). The server allows 10 sign-in
 * nonces per minute per client address, so a CLI that signed in on every command would soon be
 * refused; with the cache it signs in once per token lifetime.
 */
export class TokenCache {
  constructor(private readonly file: string) {}

  static default(): TokenCache {
    const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    return new TokenCache(process.env.LEGWORK_SESSION_CACHE || join(base, 'legwork', 'sessions.json'));
  }

  /** A cached token of this wallet on this server that lives at least another minute. */
  get(url: string, wallet: string): string | undefined {
    const token = this.read()[`${url} ${wallet}`];
    if (!token) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { sub?: unknown; exp?: unknown };
      return claims.sub === wallet && typeof claims.exp === 'number' && claims.exp > nowSeconds() + 60 ? token : undefined;
    } catch {
      return undefined;
    }
  }

  set(url: string, wallet: string, token: string | null): void {
    const all = this.read();
    if (token) all[`${url} ${wallet}`] = token;
    else delete all[`${url} ${wallet}`];
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileSync(this.file, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
    } catch {
      /* a cache only */
    }
  }

  private read(): Record<string, string> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
}

/**
 * The connection and the signed-in session, opened on first use: the token given
 * (LEGWORK_TOKEN), else a cached one, else a fresh sign-in with the wallet key (then cached).
 */
export class Session {
  private client: LegworkClient | null = null;
  private auth: AuthResult | null = null;
  private token: string | undefined;
  private cachedToken = false;

  constructor(
    readonly url: string,
    private readonly keypair: Keypair | null,
    givenToken: string | undefined,
    private readonly cache: TokenCache | null,
  ) {
    this.token = givenToken;
    if (!this.token && keypair && cache) {
      this.token = cache.get(url, keypair.wallet);
      this.cachedToken = this.token !== undefined;
    }
  }

  /** The WebSocket client, signed in or resumed. */
  async ws(options: { allowNoAccount?: boolean; fresh?: boolean } = {}): Promise<LegworkClient> {
    if (this.client) return this.client;
    const client = await LegworkClient.connect(wsUrlOf(this.url), { reconnect: false });
    this.client = client;
    if (this.token && !options.fresh) {
      try {
        this.auth = await client.resumeSession(this.token);
      } catch (error) {
        // A cached token the server no longer takes (restarted with a new JWT secret, ...): sign in again.
        if (!(this.cachedToken && error instanceof LegworkRpcError && error.errorName === 'SESSION_INVALID')) throw error;
        this.auth = null;
      }
    }
    if (!this.auth) {
      if (!this.keypair) throw new UsageError('set LEGWORK_SEED (or --seed, or LEGWORK_TOKEN) to say who you are');
      this.auth = await client.signIn(this.keypair);
      this.remember(this.auth);
    }
    if (!options.allowNoAccount) this.requireAccount(this.auth);
    return client;
  }

  /** Runs `call` with an HTTP client holding a session token (signing in again once if a cached token is refused). */
  async http<T>(call: (http: LegworkHttp) => Promise<T>): Promise<T> {
    const token = this.auth?.session_token ?? this.token;
    if (token) {
      try {
        return await call(new LegworkHttp(this.url, token));
      } catch (error) {
        if (!(this.cachedToken && error instanceof HttpError && error.status === 401 && this.keypair)) throw error;
      }
    }
    if (!this.keypair) throw new UsageError('set LEGWORK_SEED (or --seed, or LEGWORK_TOKEN) to say who you are');
    const http = new LegworkHttp(this.url);
    this.auth = await http.signIn(this.keypair);
    this.remember(this.auth);
    this.requireAccount(this.auth);
    return call(http);
  }

  get session(): AuthResult | null {
    return this.auth;
  }

  private remember(auth: AuthResult): void {
    this.token = auth.session_token;
    this.cachedToken = false;
    if (this.cache && this.keypair) this.cache.set(this.url, this.keypair.wallet, auth.account_id === null ? null : auth.session_token);
  }

  private requireAccount(auth: AuthResult): void {
    if (auth.account_id === null)
      throw new Error(
        `wallet ${auth.wallet} has no account yet: an admin creates it (POST /v1/admin/accounts { "wallet": "${auth.wallet}", "roles": ["taker"] })`,
      );
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
