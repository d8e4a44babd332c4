// Loads the server's TypeScript in plain Node through SWC, with the decorator metadata Nest's
// dependency injection reads (the same options as jest.config.js); @legwork/protocol from its source.
const Module = require('node:module');
const path = require('node:path');
const { transformFileSync } = require('@swc/core');

const root = path.resolve(__dirname, '../..');
const protocol = path.join(root, 'packages/protocol/src/index.ts');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === '@legwork/protocol' ? protocol : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformFileSync(filename, {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
    swcrc: false,
  });
  module._compile(code, filename);
};
