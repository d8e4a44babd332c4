import { readFileSync } from 'node:fs';

/**
 * `node bench/.build/bench/profile-summary.js <file.cpuprofile> [top]`: self time by function and
 * by package / source file, and inclusive time of the frames whose name matches an optional
 * `--focus <regex>`. Reads the V8 profiles written by `node --cpu-prof` (npm run bench -- --profile).
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function owner(url: string): string {
  if (!url) return '(native/gc/idle)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).replace(/\.js$/, '.ts');
  return url.replace(/^file:\/\//, '');
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args[0];
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  const focusArg = args.indexOf('--focus');
  const focus = focusArg >= 0 ? new RegExp(args[focusArg + 1]) : null;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Time per node from samples and deltas (microseconds).
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;

  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${owner(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + t);
    const o = owner(n.callFrame.url);
    pkg.set(o, (pkg.get(o) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
  console.log(`${file}\nbusy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled\n`);
  console.log('self time by package / source file:');
  for (const [k, t] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${k}`);
  console.log('\nself time by function:');
  for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${k}`);

  // Inclusive time: a sample counts once for every distinct frame key on its stack.
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const key = `${n.callFrame.functionName || '(anonymous)'} ${owner(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
      if (focus && !focus.test(key)) continue;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + t);
    }
  }
  console.log(`\ninclusive time${focus ? ` of frames matching ${focus}` : ''}:`);
  for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${k}`);
}

main();
