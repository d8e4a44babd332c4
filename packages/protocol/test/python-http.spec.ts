import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withPythonHttpRoutes } from '../../../scripts/protocol/python-http';

describe('clients/python/legwork/http.py', () => {
  it("calls every declared route as the contract's output says (npm run protocol:python rewrites the section)", () => {
    const checkedIn = readFileSync(resolve(__dirname, '../../../clients/python/legwork/http.py'), 'utf8');
    expect(checkedIn === withPythonHttpRoutes(checkedIn) ? 'up to date' : 'stale: run npm run protocol:python').toBe('up to date');
  });
});
