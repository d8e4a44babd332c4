/**
 * An account's balance row (its ledger anchor, created by its first deposit), in micro-units:
 * the one name of a balance row, from the database to the checks. `total - locked` is its free
 * balance (negative: under-collateralized, docs/spec/design.md section 12).
 */
export interface Balance {
  total: bigint;
  locked: bigint;
}

export type TransferKind = 'deposit' | 'withdrawal';
