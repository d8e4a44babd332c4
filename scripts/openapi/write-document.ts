/**
 * Writes the document /openapi.json serves to the file named by the first argument: the app is
 * built in-process on a fresh embedded database (nothing listens), its document taken, the app closed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/common/config/config';
import { ApiDocumentsService } from '../../src/modules/docs/api-documents.service';

async function main(out: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'legwork-openapi-'));
  try {
    const config = loadConfig({ SERVICE_NAME: 'Legwork', DATA_DIR: dataDir, LOG_LEVEL: 'error', HOST: '127.0.0.1', PORT: '0' });
    const app = await createApp(config);
    writeFileSync(out, JSON.stringify(app.get(ApiDocumentsService).openapi(), null, 2));
    await app.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'openapi.json').catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
