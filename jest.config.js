/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/support/e2eSetup.ts',
  globalTeardown: '<rootDir>/test/support/e2eTeardown.ts',
  testTimeout: 60_000,
  // Two cores run Temporal, the workers and the API besides the tests: one test file at a time.
  maxWorkers: 1,
};
