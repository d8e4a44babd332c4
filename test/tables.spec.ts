import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { tablesSource } from '../scripts/database/tables-source';

/**
 * src/common/database/tables.ts is what the entities declare: the row types the repositories
 * derive from it are the tables as they are (and test/e2e/schema.e2e-spec.ts holds the entities to
 * what the migrations create). Run `npm run db:tables` after changing an entity.
 */
describe('src/common/database/tables.ts', () => {
  it('is current: what `npm run db:tables` writes from the entities', async () => {
    const committed = readFileSync(resolve(__dirname, '../src/common/database/tables.ts'), 'utf8');
    expect(committed).toBe(await tablesSource());
  });

  it('types each column as node-postgres returns it: bigint as text, nullable as null, arrays as arrays', async () => {
    const source = await tablesSource();
    expect(source).toContain('    sessions_revoked_at: string | null; // bigint\n');
    expect(source).toContain('    roles: string[]; // text[] NOT NULL\n');
    expect(source).toContain('    payload: Buffer; // bytea NOT NULL\n');
    expect(source).toContain('    legs: unknown; // jsonb NOT NULL\n');
  });
});
