// Jest projects: fast unit rules, provider adapters against the fake HTTP provider, and workflows on a real
// Temporal dev server (started once by the global setup of the `temporal` project), and the heavier `reliability`
// suite on the same server.
const transform = { '^.+\\.ts$': 'ts-jest' };
// The package's entry points by name, as the examples import them (tsconfig.json "paths" says the same).
const moduleNameMapper = {
  '^switchyard$': '<rootDir>/src/index.ts',
  '^switchyard/worker$': '<rootDir>/src/worker-entry.ts',
  '^switchyard/workflow$': '<rootDir>/src/workflow/index.ts',
  '^switchyard/testing$': '<rootDir>/src/testing.ts',
};
const common = {
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  // Test files share one dev server, and breakers are shared by (provider, model) on a server: one file at a time.
  maxWorkers: 1,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'providers', testMatch: ['<rootDir>/test/providers/**/*.test.ts'] },
    {
      ...common,
      displayName: 'temporal',
      testMatch: ['<rootDir>/test/temporal/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/long-timeout.ts'],
    },
    {
      // The heavier suite: worker kills, engine restarts and soaks under random faults. Same dev server.
      ...common,
      displayName: 'reliability',
      testMatch: ['<rootDir>/test/reliability/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/long-timeout.ts'],
    },
  ],
};
