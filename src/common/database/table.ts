import type { Tables } from './tables';

/**
 * Row types and column lists derived from the tables the entities declare (tables.ts, written by
 * `npm run db:tables`), so that a table is declared once: a column renamed, dropped or retyped in
 * an entity fails the build in every row type and column list that names it. The statements stay
 * SQL text; what they select is typed here.
 */

export type TableName = keyof Tables;
export type Column<T extends TableName> = keyof Tables[T] & string;

/** A row of `T` as node-postgres returns it: the columns `K` (all when none is named). */
export type Row<T extends TableName, K extends Column<T> = Column<T>> = Pick<Tables[T], K>;

/**
 * `R` with some columns held to narrower types than the catalog knows: an enumeration in a text
 * column, the shape of a jsonb one. `N` may name only columns of `R`, each with a type the
 * column's own type admits (`state: RfqState` over `string`; `legs: StoredLeg[]` over `unknown`).
 */
export type Narrow<R, N extends { [K in keyof N]: K extends keyof R ? R[K] : never }> = Omit<R, keyof N> & N;

/** The columns `K` of table `T`, for a select list: the text (`sql`) and the type of the rows it selects (`RowOf`). */
export interface ColumnList<T extends TableName, K extends Column<T>> {
  readonly sql: string;
  /** Never set: carries the row type for `RowOf`. */
  readonly row?: Row<T, K>;
}

/** The columns of `R` read from the outer side of a join: each may be null. */
export type Maybe<R> = { [K in keyof R]: R[K] | null };

export type RowOf<L> = L extends ColumnList<infer T, infer K> ? Row<T, K> : never;

/** A select list of `table`'s columns, in the order given, joined by `, ` (prefixed with `alias.` when given). */
export function columnList<T extends TableName, const K extends Column<T>>(table: T, names: readonly K[], alias?: string): ColumnList<T, K> {
  void table;
  return { sql: names.map((name) => (alias ? `${alias}.${name}` : name)).join(', ') };
}

/** A column name of `table`, checked against its declaration (for SET lists and conditions built in code). */
export function column<T extends TableName>(table: T, name: Column<T>): string {
  void table;
  return name;
}
