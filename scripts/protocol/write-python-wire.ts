import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pythonWire } from './python-wire';

/** npm run protocol:python: writes clients/python/legwork/wire.py from the contract. */
const target = resolve(__dirname, '../../clients/python/legwork/wire.py');
writeFileSync(target, pythonWire());
process.stdout.write(`wrote ${target}\n`);
