import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withPythonHttpRoutes } from './python-http';
import { pythonWire } from './python-wire';

/** npm run protocol:python: writes clients/python/legwork/wire.py and the declared routes' calls of http.py from the contract. */
const target = resolve(__dirname, '../../clients/python/legwork/wire.py');
writeFileSync(target, pythonWire());
process.stdout.write(`wrote ${target}\n`);
const http = resolve(__dirname, '../../clients/python/legwork/http.py');
writeFileSync(http, withPythonHttpRoutes(readFileSync(http, 'utf8')));
process.stdout.write(`wrote the declared routes of ${http}\n`);
