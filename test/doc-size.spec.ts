import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * docs/ is read in order by a newcomer, so it has a size a newcomer can read: the pages outside the
 * contract's copy (docs/spec) at most 150 KB together, and the architecture page, the one map of the
 * code, at most 12 KB. Measurements and the story of decisions belong in bench/results and git, not
 * on the reading path; a page that grows past its budget is condensed, not exempted.
 */
const ROOT = resolve(__dirname, '..');
const DOCS_BUDGET = 150 * 1024;
const ARCHITECTURE_BUDGET = 12 * 1024;

/** Every markdown file under docs/ but docs/spec, with its size in bytes, as a path relative to the root. */
function docPages(): Map<string, number> {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.md') ? [path] : [];
    });
  const pages = walk(join(ROOT, 'docs'))
    .map((path) => relative(ROOT, path).split(sep).join('/'))
    .filter((path) => !path.startsWith('docs/spec/'));
  return new Map(pages.map((page) => [page, statSync(join(ROOT, page)).size]));
}

/** What is over budget, largest pages first, so the message says where to cut. */
function overBudget(sizes: Map<string, number>, budget: number): string | null {
  const total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  if (total <= budget) return null;
  const largest = [...sizes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([page, size]) => `${page} ${size}`);
  return `${total} bytes, over ${budget} by ${total - budget}; largest: ${largest.join(', ')}`;
}

describe('docs/ stays readable', () => {
  const pages = docPages();

  it('finds the pages it measures, and not the contract copy', () => {
    expect(pages.has('docs/README.md')).toBe(true);
    expect(pages.has('docs/architecture.md')).toBe(true);
    expect([...pages.keys()].some((page) => page.startsWith('docs/spec/'))).toBe(false);
  });

  it(`keeps the markdown under docs/ outside docs/spec within ${DOCS_BUDGET} bytes`, () => {
    expect(overBudget(pages, DOCS_BUDGET)).toBeNull();
  });

  it(`keeps docs/architecture.md within ${ARCHITECTURE_BUDGET} bytes`, () => {
    expect(overBudget(new Map([['docs/architecture.md', pages.get('docs/architecture.md') ?? 0]]), ARCHITECTURE_BUDGET)).toBeNull();
  });

  it('names the overrun and the largest pages when over budget', () => {
    const sizes = new Map([
      ['docs/a.md', 100],
      ['docs/b.md', 60],
    ]);
    expect(overBudget(sizes, 160)).toBeNull();
    expect(overBudget(sizes, 150)).toBe('160 bytes, over 150 by 10; largest: docs/a.md 100, docs/b.md 60');
  });
});
