// Builds the operator console (docs/console.md) into dist/console: one script, one stylesheet,
// one page. Run by `npm run build` and by the console tests; nothing is fetched at run time.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  logLevel: 'warning',
  legalComments: 'linked',
  // The protocol package from its TypeScript source (ES modules, so only what the console uses is
  // bundled), not its CommonJS build for Node; it holds no Node import (packages/protocol/test/browser-bundle.spec.ts).
  alias: { '@legwork/protocol': join(here, '..', 'packages', 'protocol', 'src', 'index.ts') },
  platform: 'browser',
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
