import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { tablesSource } from './tables-source';

/** npm run db:tables: writes src/common/database/tables.ts from the entities. */
const target = resolve(__dirname, '../../src/common/database/tables.ts');
void tablesSource().then((source) => {
  writeFileSync(target, source);
  process.stdout.write(`wrote ${target}\n`);
});
