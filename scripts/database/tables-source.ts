import { DataSource } from 'typeorm';
import { ConnectionMetadataBuilder } from 'typeorm/connection/ConnectionMetadataBuilder';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ENTITIES } from '../../src/app-entities';

/**
 * What node-postgres hands back for each column type the entities use (its default parsers, on
 * PostgreSQL and on the embedded database alike: both are reached through `pg`). bigint and
 * numeric come back as text so that no digit is lost; jsonb is parsed, its shape the caller's.
 */
const JS_TYPES: Record<string, string> = {
  text: 'string',
  char: 'string',
  bigint: 'string',
  numeric: 'string',
  integer: 'number',
  smallint: 'number',
  boolean: 'boolean',
  timestamptz: 'Date',
  date: 'Date',
  jsonb: 'unknown',
  bytea: 'Buffer',
};

function jsType(table: string, column: ColumnMetadata): string {
  const sqlType = String(column.type);
  const base = JS_TYPES[sqlType];
  if (!base) throw new Error(`${table}.${column.databaseName}: no JS type for column type ${sqlType} (add it to JS_TYPES)`);
  const type = column.isArray ? `${base}[]` : base;
  // unknown (jsonb) already holds null.
  return column.isNullable && type !== 'unknown' ? `${type} | null` : type;
}

/** The text of src/common/database/tables.ts: every table of the entities, column by column, sorted by table name. */
export async function tablesSource(): Promise<string> {
  const dataSource = new DataSource({ type: 'postgres', entities: [...ENTITIES] });
  const metadatas = await new ConnectionMetadataBuilder(dataSource).buildEntityMetadatas([...ENTITIES]);
  const tables = [...metadatas].sort((a, b) => a.tableName.localeCompare(b.tableName));
  const lines = [
    '// Written by `npm run db:tables` from the entities (src/app-entities.ts): do not edit.',
    '// test/tables.spec.ts fails when it is not what the entities declare.',
    '',
    '/**',
    ' * The rows of every table as node-postgres returns them, column by column (the SQL type in the',
    " * comment). Repositories derive their row types from it (`Row<'rfqs', 'id' | 'state'>`, table.ts),",
    ' * so a column renamed or retyped in an entity fails the build wherever a row type names it.',
    ' */',
    'export interface Tables {',
  ];
  for (const table of tables) {
    lines.push(`  ${table.tableName}: {`);
    for (const column of table.columns) {
      const sqlType = `${String(column.type)}${column.isArray ? '[]' : ''}${column.isNullable ? '' : ' NOT NULL'}`;
      lines.push(`    ${column.databaseName}: ${jsType(table.tableName, column)}; // ${sqlType}`);
    }
    lines.push('  };');
  }
  lines.push('}', '');
  return lines.join('\n');
}
