// Two tiers, as in cert-manager: unit tests of pure logic (`jest.config.js`, the default) and
// integration tests against a real kube-apiserver (`jest.integration.config.js`), whose global
// setup starts the local control plane once for the run. TypeScript is run the way Node 24
// runs it: types are stripped, nothing is compiled.
export const common = {
  rootDir: import.meta.dirname,
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '\\.ts$': '<rootDir>/test/support/strip-types.js' },
  testEnvironment: 'node',
};

export default { ...common, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] };
