// Run before `npm start` and `npm test`: on a Node.js older than package.json's engines, one clear
// line instead of npm's EBADENGINE list at install or whatever a newer API does at run time. It
// warns and goes on (Node.js 20 still runs the suite today); Node.js 24 LTS is what CI runs.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [floorMajor, floorMinor] = /(\d+)\.(\d+)/.exec(engines.node).slice(1).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
  process.stderr.write(
    `Legwork runs on Node.js 24 LTS (package.json engines: node ${engines.node}); this is Node.js ${process.versions.node}, ` +
      'which is not supported: install Node.js 24 (.ci/run fetches it from the npm registry when the machine has an older one).\n',
  );
}
