import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.slipway');
export const STATE_FILE = join(STATE_DIR, 'test-cluster.json');

export interface TestClusterState {
  kubeconfig: string;
  created: boolean;
  name?: string;
  binDir?: string;
}
