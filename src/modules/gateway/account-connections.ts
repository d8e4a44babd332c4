import type { ClientConnection } from './client-connection';

/**
 * Signed-in connections by account. Most accounts hold one connection, kept as itself; an array
 * only from the second (a one-element array per idle connection costs ~56 bytes of heap, F3-heap).
 */
export class AccountConnections {
  private readonly byAccount = new Map<number, ClientConnection | ClientConnection[]>();

  add(accountId: number, connection: ClientConnection): void {
    const entry = this.byAccount.get(accountId);
    if (entry === undefined) this.byAccount.set(accountId, connection);
    else if (Array.isArray(entry)) entry.push(connection);
    else this.byAccount.set(accountId, [entry, connection]);
  }

  delete(accountId: number, connection: ClientConnection): void {
    const entry = this.byAccount.get(accountId);
    if (entry === undefined) return;
    if (!Array.isArray(entry)) {
      if (entry === connection) this.byAccount.delete(accountId);
      return;
    }
    const at = entry.indexOf(connection);
    if (at >= 0) entry.splice(at, 1);
    // Back to the connection itself when one is left, so the entry is what a first add makes.
    if (entry.length === 1) this.byAccount.set(accountId, entry[0]);
    else if (entry.length === 0) this.byAccount.delete(accountId);
  }

  /** The account's connections now: a copy, safe to iterate while they are added or removed. */
  of(accountId: number): readonly ClientConnection[] {
    const entry = this.byAccount.get(accountId);
    if (entry === undefined) return [];
    return Array.isArray(entry) ? [...entry] : [entry];
  }
}
