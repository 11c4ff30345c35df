// `npm run test:cluster`: the suite on the production shape (PostgreSQL, Temporal's four services as separate
// processes, Switchyard worker processes), kept out of `npm test`. Its global setup starts the local cluster, or
// uses one's own at SWITCHYARD_TEST_TEMPORAL_ADDRESS.
const transform = { '^.+\\.ts$': 'ts-jest' };

/** @type {import('jest').Config} */
module.exports = {
  // One file at a time: each file runs its own worker processes against the one cluster.
  maxWorkers: 1,
  projects: [
    {
      displayName: 'cluster',
      testEnvironment: 'node',
      transform,
      moduleFileExtensions: ['ts', 'js', 'json'],
      testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/cluster-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/cluster-global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/long-timeout.ts'],
    },
  ],
};
