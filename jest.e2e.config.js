// The e2e tier: the whole chain on the real node (a real kubelet, containerd, BuildKit, a local
// registry, MariaDB and PostgreSQL on this machine). Needs root on Linux; builds the node the
// first time (scripts/real-node/).
import { join } from 'node:path';
import process from 'node:process';
import { common } from './jest.config.js';

// The tier records its cluster apart from the integration tier's (test/support/state.ts).
process.env.SLIPWAY_TEST_STATE_FILE = join(import.meta.dirname, '.slipway', 'test-e2e-cluster.json');

export default {
  ...common,
  testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
  globalSetup: '<rootDir>/test/e2e/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 600000,
};
