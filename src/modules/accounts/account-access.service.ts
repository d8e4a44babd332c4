import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { ViewSync } from '../../common/broadcast/view-sync';
import { ViewVersions } from '../../common/broadcast/view-versions';
import { type AccountAccessState, type Lapse, type Principal, type Role, currentPrincipal } from '../../common/access/access';
import { AccountRepository } from './account.repository';

/** Broadcast topic: an account's roles or revocation changed (payload `{ account_id }`). */
export const ACCOUNT_ACCESS_CHANGED = 'account-access';

/** Accounts held at most; past it the oldest entry goes (a miss is one primary-key read). */
const MAX_CACHED = 100_000;

const NEVER_REVOKED: AccountAccessState = Object.freeze({ roles: Object.freeze([]) as unknown as Role[], revokedAt: 0 });

export type AccessListener = (accountId: number, state: AccountAccessState) => void;

/**
 * Each account's roles and session revocation as they are now (docs/spec/design.md section 10): a cache
 * of the accounts table on every instance, kept in step through the broadcaster (ViewSync: the
 * writer reloads and announces, every instance reloads that account), read from PostgreSQL on a
 * miss. The HTTP guard and the JSON-RPC dispatcher decide with it; a hit costs no I/O (the hot
 * paths of bench F1a and F2 stay as they were).
 */
@Injectable()
export class AccountAccessService implements OnModuleInit, OnModuleDestroy {
  private readonly states = new Map<number, AccountAccessState>();
  private readonly listeners = new Set<AccessListener>();
  private readonly sync: ViewSync<number>;
  /** Derived principals per token principal, while the account's state is the same object. */
  private readonly derived = new WeakMap<Principal, { state: AccountAccessState; current: Principal | Lapse }>();

  constructor(
    private readonly accounts: AccountRepository,
    broadcaster: Broadcaster,
    versions: ViewVersions,
  ) {
    // Versioned (docs/spec/design.md 11): a change whose broadcast was lost is reloaded at the next check.
    this.sync = new ViewSync(
      broadcaster,
      ACCOUNT_ACCESS_CHANGED,
      (id) => this.load(id),
      (payload) => {
        const id = (payload as { account_id?: unknown } | null)?.account_id;
        return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
      },
      versions,
    );
  }

  async onModuleInit(): Promise<void> {
    await this.sync.start();
  }

  onModuleDestroy(): void {
    this.sync.stop();
  }

  /** Called with every account whose state was reloaded after a change (live sessions follow it). */
  onChange(listener: AccessListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The account's state: at once from the cache, else read from the database. */
  state(accountId: number): AccountAccessState | Promise<AccountAccessState> {
    const known = this.states.get(accountId);
    if (known) return known;
    return this.sync.refresh(accountId).then(() => this.states.get(accountId) ?? NEVER_REVOKED);
  }

  /**
   * The principal a session acts as now, or why it lapsed (docs/spec/design.md section 10). The admin token
   * and a wallet without an account have no account to read. Synchronous on a cache hit.
   */
  current(principal: Principal): Principal | Lapse | Promise<Principal | Lapse> {
    if (principal.accountId === null) {
      return principal.expiresAt !== undefined && principal.expiresAt * 1000 <= Date.now() ? 'expired' : principal;
    }
    const state = this.state(principal.accountId);
    return state instanceof Promise ? state.then((s) => this.derive(principal, s)) : this.derive(principal, state);
  }

  private derive(principal: Principal, state: AccountAccessState): Principal | Lapse {
    const memo = this.derived.get(principal);
    if (memo && memo.state === state && (typeof memo.current === 'string' || principal.expiresAt === undefined || principal.expiresAt * 1000 > Date.now())) {
      return memo.current;
    }
    const current = currentPrincipal(principal, state, Date.now());
    this.derived.set(principal, { state, current });
    return current;
  }

  /**
   * After a committed change of an account's roles or revocation: reload here, then tell every
   * instance. `version`: what bumpViewVersion(ACCOUNT_ACCESS_CHANGED) answered in the change's
   * transaction (an instance that misses the broadcast sees it at its next version check).
   */
  async changed(accountId: number, version: bigint): Promise<void> {
    await this.sync.refresh(accountId);
    await this.sync.publish({ account_id: accountId }, version);
  }

  /** Reads one account (or every cached one: null) into the cache; tells the listeners of each change. */
  private async load(accountId: number | null): Promise<void> {
    const ids = accountId === null ? [...this.states.keys()] : [accountId];
    if (ids.length === 0) return;
    const rows = await this.accounts.accessOf(ids);
    for (const row of rows) {
      const id = row.id;
      const state: AccountAccessState = Object.freeze({ roles: Object.freeze([...row.roles]) as Role[], revokedAt: row.sessionsRevokedAt });
      const before = this.states.get(id);
      if (before && before.revokedAt === state.revokedAt && sameRoles(before.roles, state.roles)) continue;
      this.states.delete(id);
      if (this.states.size >= MAX_CACHED) this.states.delete(this.states.keys().next().value as number);
      this.states.set(id, state);
      if (before || accountId !== null) for (const listener of this.listeners) listener(id, state);
    }
    // No such account (yet): remembered as no roles, so a stray token costs no read per call;
    // creating the account announces it like any change.
    if (accountId !== null && rows.length === 0 && !this.states.has(accountId)) this.states.set(accountId, NEVER_REVOKED);
  }
}

function sameRoles(a: readonly Role[], b: readonly Role[]): boolean {
  return a.length === b.length && a.every((r) => b.includes(r));
}
