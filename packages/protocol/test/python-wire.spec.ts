import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pythonWire } from '../../../scripts/protocol/python-wire';

describe('clients/python/legwork/wire.py', () => {
  it('is the output of the contract (npm run protocol:python rewrites it)', () => {
    const checkedIn = readFileSync(resolve(__dirname, '../../../clients/python/legwork/wire.py'), 'utf8');
    expect(checkedIn === pythonWire() ? 'up to date' : 'stale: run npm run protocol:python').toBe('up to date');
  });
});
