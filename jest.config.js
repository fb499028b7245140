// Two tiers, as in cert-manager: unit tests of pure logic, and integration tests against a
// real kube-apiserver (the local control plane, started once by the global setup).
// TypeScript is run the way Node 24 runs it: types are stripped, nothing is compiled.
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '\\.ts$': '<rootDir>/test/support/strip-types.js' },
  testEnvironment: 'node',
};

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      testTimeout: 120000,
    },
  ],
};
