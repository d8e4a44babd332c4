import { Client } from 'pg';

/** One statement on its own connection to `url` (CREATE or DROP DATABASE, which cannot run in a pool's transaction). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
