import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.slipway');
/** Where a tier's global setup records its cluster (the e2e tier points this at its own file). */
export const STATE_FILE = process.env.SLIPWAY_TEST_STATE_FILE ?? join(STATE_DIR, 'test-cluster.json');
/**
 * kubectl's discovery cache for the tests, emptied at every run: the shared ~/.kube/cache can
 * remember kinds a previous run created and deleted, and kubectl would then ask for those.
 */
export const KUBECTL_CACHE_DIR = STATE_FILE.replace(/\.json$/, '') + '-kubectl-cache';
/** The tier's kubeconfig acting as Slipway's local identity (scripts/cluster/writers.ts). */
export const CONTROLLER_KUBECONFIG = STATE_FILE.replace(/\.json$/, '') + '-controller.kubeconfig';

export interface TestClusterState {
  kubeconfig: string;
  /** The same cluster acting as Slipway's local identity (scripts/cluster/writers.ts), for the processes. */
  controllerKubeconfig: string;
  created: boolean;
  name?: string;
  binDir?: string;
  node?: 'kwok' | 'real';
}
