import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The sdk/ folder (tests run from dist-test/test/). */
const SDK_ROOT = resolve(__dirname, '..', '..');

/** The contract's vectors: the repository's copy in docs/spec/vectors (kept equal to ../shared/spec by test/spec-copy.spec.ts). */
export const VECTORS_DIR = join(SDK_ROOT, '..', 'docs', 'spec', 'vectors');

export function loadVector(name: string): any {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'));
}
