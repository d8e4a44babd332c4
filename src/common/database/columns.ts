import type { ValueTransformer } from 'typeorm';

/**
 * bigint and numeric columns as JS `bigint`: money (micro-units), contract times (unix seconds),
 * ids and exact integers. node-postgres reads them as strings so that no digit is lost; the entity
 * API sees `bigint` and writes its decimal string back.
 */
export const bigintColumn: ValueTransformer = {
  to: (value: bigint | null | undefined) => (value === null || value === undefined ? value : value.toString()),
  from: (value: string | number | null) => (value === null ? null : BigInt(value)),
};

/** Column options of a bigint column read and written as JS `bigint` (NOT NULL unless `nullable`). */
export function bigint(name: string, options: { nullable?: boolean; default?: number } = {}) {
  return {
    name,
    type: 'bigint' as const,
    transformer: bigintColumn,
    nullable: options.nullable ?? false,
    ...(options.default === undefined ? {} : { default: options.default }),
  };
}

/** Column options of a numeric column holding whole numbers (up to `precision` digits), read as JS `bigint`. */
export function wholeNumeric(name: string, options: { nullable?: boolean; precision?: number } = {}) {
  const precision = options.precision === undefined ? {} : { precision: options.precision, scale: 0 };
  return { name, type: 'numeric' as const, transformer: bigintColumn, nullable: options.nullable ?? false, ...precision };
}

/** `timestamptz DEFAULT now()`. */
export function createdAt(name: string) {
  return { name, type: 'timestamptz' as const, default: () => 'now()' };
}
