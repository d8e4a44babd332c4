import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The contract's test vectors: ../shared/spec/vectors beside the repository when it is there
 * (the source of truth), else the copy committed in test/fixtures/vectors.
 */
const shared = join(__dirname, '..', '..', 'shared', 'spec', 'vectors');
export const VECTORS_DIR = process.env.LEGWORK_VECTORS_DIR ?? (existsSync(shared) ? shared : join(__dirname, 'fixtures', 'vectors'));

export function loadVector(name: string): any {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'));
}
