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
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
