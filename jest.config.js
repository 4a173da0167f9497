const fs = require('node:fs');
const path = require('node:path');

/**
 * linkedom's own dependencies (htmlparser2, css-select and theirs) and the OpenAPI validator ship
 * ES modules only, which Jest's CommonJS module loader cannot require on Node 20; swc turns them
 * into CommonJS so tests call the extraction code (pdf.js's .mjs files too) in-process, validate the
 * API description and migrate the store (node-pg-migrate).
 */
const ESM_ONLY = [
  'css-select',
  'css-what',
  'nth-check',
  'boolbase',
  'domhandler',
  'domutils',
  'dom-serializer',
  'domelementtype',
  'entities',
  'htmlparser2',
  '@seriousme/openapi-schema-validator',
  'pdfjs-dist',
  'node-pg-migrate',
];

/**
 * An e2e file whose header says `@stack own` starts all it needs itself (`npm start`, a store, a
 * browser) and reads nothing of the stack the global setup starts, so it gives the same result on
 * either topology: the cluster run leaves it to the dev run instead of running it twice.
 * test/unit/testLayout.test.ts checks each such file's claim.
 */
const OWN_STACK = /^ \* @stack own$/m;

function ownStackFiles() {
  const dir = path.join(__dirname, 'test', 'e2e');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.test.ts') && OWN_STACK.test(fs.readFileSync(path.join(dir, file), 'utf8')));
}

const common = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(ts|js|mjs)$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};

/**
 * Four tiers, one directory each. A project's global setup runs only when one of its tests
 * is selected, so `npm run test:unit` starts no process at all.
 * - unit: pure functions and modules, in-process.
 * - workflow: the real workflow code on Temporal's time-skipping test server, activities
 *   replaced by test doubles; timers and retry backoffs are skipped.
 * - e2e: the real stack (Temporal dev server, worker and API processes from dist/, Chromium).
 * - chaos: the fault matrix (issue #25), each topology started by its test file.
 * @type {import('jest').Config}
 */
module.exports = {
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...common,
      displayName: 'workflow',
      roots: ['<rootDir>/test/workflow'],
      globalSetup: '<rootDir>/test/support/workflowSetup.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      roots: ['<rootDir>/test/e2e'],
      globalSetup: '<rootDir>/test/support/e2eSetup.ts',
      globalTeardown: '<rootDir>/test/support/e2eTeardown.ts',
      // Files on the shared stack take turns; the others run beside them (see the environment).
      testEnvironment: '<rootDir>/test/support/sharedStackEnvironment.ts',
      testEnvironmentOptions: { ownStackFiles: ownStackFiles() },
      testPathIgnorePatterns: [
        '/node_modules/',
        ...(process.env.TEST_TOPOLOGY === 'cluster'
          ? ownStackFiles().map((file) => `/test/e2e/${file.replace(/\./g, '\\.')}$`)
          : []),
      ],
    },
    // `npm run test:chaos` only: the whole fault matrix takes half an hour, so it is not part of
    // `npm test`, which runs its short version (test/e2e/chaosShort.test.ts).
    ...(process.env.WEBLOOM_CHAOS === '1'
      ? [{ ...common, displayName: 'chaos', roots: ['<rootDir>/test/chaos'] }]
      : []),
  ],
  // Jest reads the timeout from the top level only, not from a project.
  testTimeout: 60_000,
  // Two files at once: the e2e files on the shared stack take turns (test/support/
  // sharedStackEnvironment.ts), so the second runs a unit or workflow file or an e2e file with a
  // stack of its own, whose waits on timers, streams and browsers leave the cores room.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/testOrder.js',
  reporters: ['default', '<rootDir>/test/support/runningFiles.js'],
  // The cluster run passed 245/245 and then did not exit: a handle some e2e file leaves open (not
  // yet found) kept Jest alive after the stack was torn down, and CI would have waited to its limit.
  // The stack's teardown runs first either way; finding the handle is noted for the next stop.
  forceExit: true,
};
