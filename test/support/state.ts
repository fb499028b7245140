import { join } from 'node:path';

export const STATE_DIR = join(import.meta.dirname, '..', '..', '.slipway');
export const STATE_FILE = join(STATE_DIR, 'test-cluster.json');

export interface TestClusterState {
  kubeconfig: string;
  created: boolean;
  name?: string;
  binDir?: string;
}
