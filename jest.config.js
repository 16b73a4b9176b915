/**
 * Jest in native-ESM mode: middy 7 is ESM-only. Run through `npm test` (which adds --experimental-vm-modules).
 * Contract tests talk over HTTP to one local server (real handlers + DynamoDB Local) started by globalSetup.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  setupFilesAfterEnv: ['aws-cdk-lib/testhelpers/jest-autoclean'],
  testTimeout: 30000,
  // Two test files at a time, also on two CPUs (Jest's default there is one): most of a file's time is waiting on the
  // server and DynamoDB Local, and tests that read shared lists scope them to their own records or use a server of their own.
  maxWorkers: 2,
};
