import { loadConfig } from '../config/config';
import { Database } from './database';

/** For the TypeORM CLI (`npm run migration:run`): the same migrations, against DATABASE_URL. */
const config = loadConfig();
if (!config.databaseUrl) throw new Error('DATABASE_URL is required for the migration CLI');
export default Database.dataSource(config.databaseUrl, 1);
