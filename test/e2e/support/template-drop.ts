import { dropPostgresTemplate } from './migrated-template';

/** jest's globalTeardown: drops the run's PostgreSQL template (template-root.ts), if it built one. */
export default async function templateDrop(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (base) await dropPostgresTemplate(base);
}
