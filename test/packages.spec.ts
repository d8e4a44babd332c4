import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The client packages cannot be confused with someone else's (docs/security.md): nobody here owns
 * the `@legwork` scope on the public npm registry, so both packages are private (npm refuses to
 * publish them), and no document tells anyone to install them by bare name, which would fetch
 * whatever that registry holds under it. The install path is the tarballs `npm run sdk:pack`
 * writes, or the workspace.
 */
const ROOT = resolve(__dirname, '..');
const PACKAGES = ['packages/protocol/package.json', 'sdk/package.json'];

/** The Markdown files a user reads: the READMEs and docs/ (the contract's copy aside). */
function documents(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (name === 'node_modules' || name.startsWith('.') || name.startsWith('dist')) return [];
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.md') ? [path] : [];
    });
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'sdk')), ...walk(join(ROOT, 'tools')), ...walk(join(ROOT, 'docs'))]
    .filter((path) => !relative(ROOT, path).startsWith(join('docs', 'spec')))
    .map((path) => relative(ROOT, path));
}

/** An install of a @legwork package by name, from a registry: `npm install @legwork/sdk`, `npm i -S @legwork/protocol@0.1.0`, `yarn add`, `pnpm add`. */
const BARE_INSTALL = /\b(?:npm\s+(?:install|i|add)|yarn\s+add|pnpm\s+(?:add|install|i))\b[^\n]*?\s@legwork\//;

describe('the client packages are private and installed from tarballs', () => {
  it.each(PACKAGES)('%s is private, so npm will not publish it', (path) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
    expect(pkg.name).toMatch(/^@legwork\//);
    expect(pkg.private).toBe(true);
  });

  it('no README or document names a bare registry install of them', () => {
    const found = documents().flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .filter((line) => BARE_INSTALL.test(line))
        .map((line) => `${path}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
    expect(documents()).toEqual(expect.arrayContaining(['README.md', join('sdk', 'README.md')]));
  });

  it('the pattern finds what it must', () => {
    for (const line of ['npm install @legwork/sdk', 'npm i -S @legwork/protocol@0.1.0', 'yarn add @legwork/sdk', 'pnpm add @legwork/sdk']) {
      expect(BARE_INSTALL.test(line)).toBe(true);
    }
    expect(BARE_INSTALL.test('npm install ./legwork-protocol-0.1.0.tgz ./legwork-sdk-0.1.0.tgz')).toBe(false);
  });

  it('both READMEs give the tarball install, and `npm run sdk:pack` writes those tarballs', () => {
    for (const path of ['README.md', join('sdk', 'README.md')]) {
      expect(readFileSync(join(ROOT, path), 'utf8')).toContain('npm install ./legwork-protocol-0.1.0.tgz ./legwork-sdk-0.1.0.tgz');
    }
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts['sdk:pack']).toMatch(/npm pack .*--workspace @legwork\/protocol --workspace @legwork\/sdk --pack-destination dist-packages/);
    for (const path of PACKAGES) expect(JSON.parse(readFileSync(join(ROOT, path), 'utf8')).version).toBe('0.1.0');
  });
});
