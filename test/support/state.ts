import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.slipway');
/** Where a tier's global setup records its cluster (the e2e tier points this at its own file). */
export const STATE_FILE = process.env.SLIPWAY_TEST_STATE_FILE ?? join(STATE_DIR, 'test-cluster.json');

export interface TestClusterState {
  kubeconfig: string;
  created: boolean;
  name?: string;
  binDir?: string;
  node?: 'kwok' | 'real';
}
