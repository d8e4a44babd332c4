// Installs do not phone home (design.md section 20): runs `npm install` as a fresh clone would (the
// manifests and the lock file copied into a temporary directory) with every host but the registry's
// unresolvable in each Node process of the install (guard.cjs), and fails when
// - the install failed, or a process of it looked up any host but the registry's;
// - @scarf/scarf's postinstall (install analytics, under @nestjs/swagger) ran at all;
// - npm warned about an install script that package.json's allowScripts neither allows nor denies;
// - npm warned EBADENGINE on a Node.js that package.json's engines accepts.
// An allowed script (esbuild's) must be seen running under the guard, or the check proves nothing.
// The environment's own opt-outs (SCARF_ANALYTICS, DO_NOT_TRACK) are removed: package.json must hold.
// `--control` strips package.json's two protections from the copy and expects the postinstall to run:
// the check's own mutation test. Usage: node scripts/install/check-no-phone-home.mjs [--control] [--keep]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const control = process.argv.includes('--control');
const keep = process.argv.includes('--keep');

function copyManifests(dir) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (control) {
    delete manifest.scarfSettings;
    delete manifest.allowScripts['@scarf/scarf'];
  }
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(path.join(root, 'package-lock.json'), path.join(dir, 'package-lock.json'));
  for (const workspace of manifest.workspaces ?? []) {
    mkdirSync(path.join(dir, workspace), { recursive: true });
    cpSync(path.join(root, workspace, 'package.json'), path.join(dir, workspace, 'package.json'));
  }
  return manifest;
}

// A parent `npm run` passes its own configuration down (npm_config_local_prefix would send the child
// install to this checkout); the C compiler's headers (npm_config_nodedir, set by .ci/run) stay.
function installEnvironment(log) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$|SCARF_|DO_NOT_TRACK$)/.test(name) || name === 'npm_config_nodedir'),
  );
  const registry = new URL(execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()).hostname;
  env.LEGWORK_INSTALL_GUARD_LOG = log;
  env.LEGWORK_INSTALL_GUARD_HOSTS = [registry, 'localhost', '127.0.0.1', '::1'].join(',');
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${path.join(import.meta.dirname, 'guard.cjs')}`.trim();
  return { env, registry };
}

function install(dir, env) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(output).toString('utf8') }));
  });
}

function engineAccepted(manifest) {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [floorMajor, floorMinor] = /(\d+)\.(\d+)/.exec(manifest.engines.node).slice(1).map(Number);
  return major > floorMajor || (major === floorMajor && minor >= floorMinor);
}

function failures({ code, output }, lines, manifest, registry) {
  const ran = (script) => lines.some((line) => line.startsWith('run ') && line.includes(script));
  const found = [];
  if (code !== 0) found.push(`npm install exited ${code}`);
  for (const line of lines.filter((l) => l.startsWith('refused '))) found.push(`looked up a host other than the registry (${registry}): ${line.slice(8)}`);
  if (ran('@scarf/scarf/report.js')) found.push("@scarf/scarf's postinstall ran");
  if (!ran('esbuild/install.js')) found.push("esbuild's allowed postinstall was not seen under the guard: the check saw no install script");
  if (/not yet covered by allowScripts/.test(output)) found.push('npm warned about install scripts that allowScripts does not list');
  if (/EBADENGINE/.test(output) && engineAccepted(manifest)) found.push(`npm warned EBADENGINE on Node.js ${process.versions.node}`);
  return found;
}

const dir = mkdtempSync(path.join(tmpdir(), 'legwork-install-'));
const log = path.join(dir, 'guard.log');
writeFileSync(log, '');
const manifest = copyManifests(dir);
const { env, registry } = installEnvironment(log);
console.log(
  `npm install in ${dir} on Node.js ${process.versions.node}, resolving only ${registry} and loopback${control ? ' (control: protections stripped)' : ''}`,
);
const result = await install(dir, env);
const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
console.log(result.output.trim().split('\n').slice(-12).join('\n'));
console.log(
  `install processes seen: ${lines.filter((l) => l.startsWith('run ')).length}; lookups refused: ${lines.filter((l) => l.startsWith('refused ')).length}`,
);
if (!keep) rmSync(dir, { recursive: true, force: true });
const found = failures(result, lines, manifest, registry);
if (control) {
  const ranScarf = found.includes("@scarf/scarf's postinstall ran");
  const tried = found.some((failure) => failure.endsWith('scarf.sh')) ? 'and looked up scarf.sh' : 'and gave up before its request (its `npm ls` has 3 s)';
  console.log(
    ranScarf
      ? `control: @scarf/scarf's postinstall ran without the protections ${tried}`
      : "control: @scarf/scarf's postinstall did not run even without the protections",
  );
  process.exitCode = ranScarf ? 0 : 1;
} else {
  for (const failure of found) console.error(`FAIL: ${failure}`);
  if (found.length === 0) console.log('ok: the install contacted only the registry, @scarf/scarf did not run, every install script is listed');
  process.exitCode = found.length === 0 ? 0 : 1;
}
