/**
 * linkedom's own dependencies (htmlparser2, css-select and theirs) ship ES modules only, which
 * Jest's CommonJS module loader cannot require on Node 20; swc turns them into CommonJS so tests
 * call the extraction code in-process.
 */
const ESM_ONLY = ['css-select', 'css-what', 'nth-check', 'boolbase', 'domhandler', 'domutils', 'dom-serializer', 'domelementtype', 'entities', 'htmlparser2'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(ts|js)$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/e2eSetup.ts',
  globalTeardown: '<rootDir>/test/support/e2eTeardown.ts',
  testTimeout: 60_000,
  // Two cores run Temporal, the workers and the API besides the tests: one test file at a time.
  maxWorkers: 1,
};
