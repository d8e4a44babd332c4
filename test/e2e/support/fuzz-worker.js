// Generates fuzz frames off the main thread (the e2e process is also the server: generating there
// would halve the frames it can take). Loads rpc-fuzz.ts through SWC, as jest does.
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const file = join(__dirname, 'rpc-fuzz.ts');
const { code } = transformSync(readFileSync(file, 'utf8'), {
  filename: file,
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'commonjs' },
});
const fuzz = new Module(file);
fuzz.filename = file;
fuzz.paths = Module._nodeModulePaths(__dirname);
fuzz._compile(code, file);
const { rng, seeds, frame } = fuzz.exports;

/** One generator per stream (a fuzzed connection), each with its own seeded sequence. */
const streams = new Map();
function stream(index) {
  let s = streams.get(index);
  if (!s) {
    const r = rng(workerData.seed * 1000 + index);
    let id = index * 1e9;
    s = { r, seed: seeds(workerData.world, r), nextId: () => ++id };
    streams.set(index, s);
  }
  return s;
}

parentPort.on('message', ({ index, count }) => {
  const s = stream(index);
  const frames = new Array(count);
  for (let i = 0; i < count; i++) frames[i] = frame(s.r, s.seed, s.nextId);
  parentPort.postMessage({ index, frames });
});
