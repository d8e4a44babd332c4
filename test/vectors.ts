import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The contract's test vectors: the repository's copy in docs/spec/vectors (test/spec-copy.spec.ts
 * fails when it differs from ../shared/spec while that exists).
 */
export const VECTORS_DIR = join(__dirname, '..', 'docs', 'spec', 'vectors');

export function loadVector(name: string): any {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'));
}
