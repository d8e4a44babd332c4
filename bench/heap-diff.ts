import { readFileSync } from 'node:fs';

/**
 * `node bench/.build/bench/heap-diff.js before.heapsnapshot after.heapsnapshot [per]`: objects
 * added between two V8 heap snapshots, by type and constructor name, as count and self bytes (and
 * per `per` units, e.g. per connection). Used for F3 (memory per idle signed-in WebSocket).
 */
function summary(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const f = snap.snapshot.meta.node_fields as string[];
  const types = snap.snapshot.meta.node_types[0] as string[];
  const [it, iname, isize] = [f.indexOf('type'), f.indexOf('name'), f.indexOf('self_size')];
  const nodes = snap.nodes as number[];
  const strings = snap.strings as string[];
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < nodes.length; i += f.length) {
    const type = types[nodes[i + it]];
    let name = type === 'object' || type === 'closure' || type === 'native' ? strings[nodes[i + iname]] : `(${type})`;
    if (type === 'closure') name = `closure ${name}`;
    const key = `${type}: ${name.slice(0, 60)}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += nodes[i + isize];
    out.set(key, e);
  }
  return out;
}

const [a, b, perArg] = process.argv.slice(2);
const per = Number(perArg ?? 1);
const before = summary(a);
const after = summary(b);
const rows = [...after].map(([k, v]) => ({ k, count: v.count - (before.get(k)?.count ?? 0), size: v.size - (before.get(k)?.size ?? 0) }));
rows.sort((x, y) => y.size - x.size);
const total = rows.reduce((s, r) => s + r.size, 0);
console.log(`added self bytes: ${total} (${(total / per).toFixed(0)} per unit of ${per})`);
for (const r of rows.slice(0, 30)) console.log(`${(r.size / per).toFixed(1).padStart(9)} B ${(r.count / per).toFixed(2).padStart(7)} obj  ${r.k}`);
