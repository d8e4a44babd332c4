// The boundaries of docs/architecture.md (and the ban on focused tests), proven through the repository's own eslint.config.mjs:
// each case lints a few lines as if they stood at a given path. Type information is switched off
// here (the files are not on disk); the boundary rules do not need it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [tseslint.configs.disableTypeChecked, { languageOptions: { parserOptions: { projectService: false, project: null } } }],
});

/** The boundary findings (rule id and message) for `code` at the repository path `file`. */
async function boundaryFindings(file, code) {
  const [result] = await eslint.lintText(code, { filePath: `${root}${file}` });
  return result.messages
    .filter((m) => ['legwork/import-boundaries', 'no-restricted-syntax', 'no-restricted-globals', 'no-restricted-properties'].includes(m.ruleId) || m.fatal)
    .map((m) => `${m.ruleId}: ${m.message}`);
}

const cases = [
  // A module reaching into another module's repository or entity, however the path is spelled.
  ['src/modules/rfq/rfq.service.ts', "import { LedgerRepository } from '../ledger/ledger.repository';", /repository of module 'ledger'/],
  ['src/modules/rfq/domain/x.ts', "import type { Balance } from '../../ledger/entities/balance.entity';", /entity of module 'ledger'/],
  ['src/modules/query/query.service.ts', "export { RfqRepository } from '../rfq/rfq.repository.js';", /repository of module 'rfq'/],
  ['src/modules/admin/admin.service.ts', "const m = await import('../ledger/ledger.repository');", /repository of module 'ledger'/],
  // Modules are layered: no import upward or within a layer (the three upward imports found in issue #32 among them).
  [
    'src/modules/auth/auth.guard.ts',
    "import { RpcMethod } from '../gateway/rpc-method';",
    /module 'auth' \(layer 1\) may not import module 'gateway' \(layer 1\)/,
  ],
  ['src/modules/health/metrics.service.ts', "import { isRfqState } from '../rfq/domain/rfq-state';", /module 'health' \(layer 0\) may not import module 'rfq'/],
  [
    'src/modules/accounts/accounts.service.ts',
    "import { SessionService } from '../auth/session.service';",
    /module 'accounts' \(layer 0\) may not import module 'auth'/,
  ],
  ['src/modules/rfq/rfq.service.ts', "import { BalancesService } from '../ledger/balances.service';", /imports point down only/],
  ['src/modules/rfq/domain/x.ts', "import { lockFor } from '../../ledger/domain/lock';", /imports point down only/],
  ['src/modules/reports/report.service.ts', "import { RfqService } from '../rfq/rfq.service';", /module 'reports' declares no layer/],
  // The maker limits sit below the RFQ: what they need of it moves down, it is not imported up.
  [
    'src/modules/maker-limits/maker-limits.service.ts',
    "import type { RfqRecord } from '../rfq/domain/rfq-record';",
    /module 'maker-limits' \(layer 3\) may not import module 'rfq' \(layer 4\)/,
  ],
  ['src/modules/maker-limits/maker-limits.rpc.ts', "import { rfqCaller } from '../rfq/rfq.rpc';", /imports point down only/],
  [
    'src/modules/rfq/quote.service.ts',
    "import { MakerLimitsRepository } from '../maker-limits/maker-limits.repository';",
    /repository of module 'maker-limits'/,
  ],
  // Domain code is pure.
  ['src/modules/ledger/domain/fees.ts', "import { Injectable } from '@nestjs/common';", /domain code is pure/],
  ['src/modules/ledger/domain/fees.ts', "import type { EntityManager } from 'typeorm';", /domain code is pure/],
  ['src/modules/ledger/domain/fees.ts', "import { FillService } from '../fill.service';", /imports no injectable/],
  ['src/modules/ledger/domain/fees.ts', 'export const port = Number(process.env.PORT);', /process/],
  // Reading the environment outside the config loader.
  ['src/modules/ledger/fill.service.ts', 'export const port = process.env.PORT;', /APP_CONFIG/],
  // No focused test is committed.
  ['test/e2e/rfq.e2e-spec.ts', "it.only('x', () => undefined);", /no focused test/],
  ['src/modules/rfq/domain/fees.spec.ts', "describe.only('x', () => undefined);", /no focused test/],
  // common imports no feature; migrations import nothing from src.
  ['src/common/broadcast/x.ts', "import { RfqService } from '../../modules/rfq/rfq.service';", /src\/common imports no feature module/],
  ['migrations/1763800000099-X.ts', "import { fold } from '../src/modules/ledger/domain/fold';", /a migration is frozen/],
  // The protocol package is shared by the server, the SDK and the tools: no Nest, nothing from the server.
  ['packages/protocol/src/decimal.ts', "import { Injectable } from '@nestjs/common';", /pure/],
  ['packages/protocol/src/decimal.ts', "import { AppError } from '../../../src/common/errors/app-error';", /imports nothing from the server/],
];

for (const [file, code, expected] of cases) {
  test(`${file}: ${code}`, async () => {
    const findings = await boundaryFindings(file, code);
    assert.ok(findings.length > 0 && findings.every((f) => !f.startsWith('null')), findings.join('\n'));
    assert.ok(
      findings.some((f) => expected.test(f)),
      findings.join('\n'),
    );
  });
}

const allowed = [
  // A module's own repository and entities, from anywhere inside it.
  ['src/modules/ledger/fill.service.ts', "import { LedgerRepository } from './ledger.repository';"],
  ['src/modules/ledger/domain/fees.spec.ts', "import { Balance } from '../entities/balance.entity';"],
  ['src/modules/ledger/positions.repository.ts', "import { Position } from './entities/position.entity';"],
  // A lower module's service, and pure code from a lower module or common.
  ['src/modules/ledger/fill.service.ts', "import { RfqLookupService } from '../rfq/rfq-lookup.service';"],
  ['src/modules/rfq/quote.service.ts', "import { MakerLimitsService } from '../maker-limits/maker-limits.service';"],
  ['src/modules/competition/competition.service.ts', "import { MakerLimitsService } from '../maker-limits/maker-limits.service';"],
  ['src/modules/maker-limits/protection-trip.service.ts', "import { AuditService } from '../audit/audit.service';"],
  ['src/modules/ledger/domain/x.ts', "import { formatRfq } from '../../../common/decimal/decimal';\nimport { canMove } from '../../rfq/domain/rfq-state';"],
  // Tests may set up state through any repository; the config loader reads the environment.
  ['test/e2e/support/ledger.ts', "import { LedgerRepository } from '../../../src/modules/ledger/ledger.repository';"],
  ['src/modules/rfq/rfq.service.spec.ts', "import { LedgerRepository } from '../ledger/ledger.repository';"],
  ['src/common/config/config.ts', 'export const port = process.env.PORT;'],
  ['src/common/broadcast/view-versions.ts', "import { ViewVersion } from './view-version.entity';"],
  ['migrations/index.ts', "import { Foundation1763800000000 } from './1763800000000-Foundation';"],
];

for (const [file, code] of allowed) {
  test(`allowed: ${file}: ${code.split('\n')[0]}`, async () => {
    assert.deepEqual(await boundaryFindings(file, code), []);
  });
}
