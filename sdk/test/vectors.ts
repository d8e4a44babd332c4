import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The sdk/ folder (tests run from dist-test/test/). */
const SDK_ROOT = resolve(__dirname, '..', '..');

/** shared/spec/vectors beside the server repo, else the server repo's copy in test/fixtures/vectors. */
const CANDIDATES = [join(SDK_ROOT, '..', '..', 'shared', 'spec', 'vectors'), join(SDK_ROOT, '..', 'test', 'fixtures', 'vectors')];

export const VECTORS_DIR = CANDIDATES.find((dir) => existsSync(join(dir, 'payloads.json')));

export function loadVector(name: string): any {
  if (!VECTORS_DIR) throw new Error(`test vectors not found in ${CANDIDATES.join(' or ')}`);
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'));
}
