import { ENTITIES } from './app-entities';
import { loadConfig } from './common/config/config';
import { Database } from './common/database/database';

/**
 * For the TypeORM CLI (`npm run migration:run`, `npm run migration:generate`): the app's
 * migrations and entities, against DATABASE_URL. Beside app-entities.ts, not in common/database,
 * because `common` imports no module.
 */
const config = loadConfig();
if (!config.databaseUrl) throw new Error('DATABASE_URL is required for the migration CLI');
export default Database.dataSource(config.databaseUrl, 1, ENTITIES);
