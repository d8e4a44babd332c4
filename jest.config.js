/** Jest: TypeScript through SWC (NestJS 12 and some dependencies ship ESM only, so they are compiled too). */
const esmPackages = [
  '@nestjs',
  'cookie',
  'bs58',
  'base-x',
  'file-type',
  'strtok3',
  'token-types',
  'peek-readable',
  'uint8array-extras',
  '@tokenizer',
  'uuid',
  'typeorm',
  '@electric-sql',
  'content-disposition',
  '@apidevtools',
  '@noble',
].join('|');

module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/packages/protocol'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  // The workspace package is tested and used from its TypeScript source, so no build is needed first.
  moduleNameMapper: { '^@legwork/protocol$': '<rootDir>/packages/protocol/src/index.ts' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages})/)`],
  testTimeout: 30000,
  // The run's one migrated embedded database, which each e2e database copies, and with DATABASE_URL its PostgreSQL one (test/e2e/support/migrated-template.ts).
  globalSetup: '<rootDir>/test/e2e/support/template-root.ts',
  // Drops the run's migrated PostgreSQL template that globalSetup built with DATABASE_URL.
  globalTeardown: '<rootDir>/test/e2e/support/template-drop.ts',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testSequencer: '<rootDir>/test/slow-first-sequencer.js',
};
