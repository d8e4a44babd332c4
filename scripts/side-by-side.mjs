// Runs shell commands side by side and fails when any of them fails: `npm test` runs the
// typecheck beside the SDK's and the tools' builds and tests, each a single-threaded chain that
// left the second core idle when they ran one after the other. Each command's output (stdout and
// stderr together) is held until it ends, then printed whole, in the order given, so the two never
// interleave. Usage: node scripts/side-by-side.mjs '<command>' '<command>' ...
import { spawn } from 'node:child_process';

function run(command) {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ command, code: 1, output: [...output, Buffer.from(`${error.message}\n`)] }));
    child.on('close', (code) => resolve({ command, code: code ?? 1, output }));
  });
}

const runs = process.argv.slice(2).map(run);
let failed = 0;
for (const pending of runs) {
  const { command, code, output } = await pending;
  process.stdout.write(Buffer.concat(output));
  if (code !== 0) {
    failed += 1;
    process.stderr.write(`side-by-side: exit ${code}: ${command}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
