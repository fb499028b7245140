// Stops the local control plane if this run started it (SLIPWAY_KEEP_CLUSTER=1 keeps it for the next run).
import { readFileSync } from 'node:fs';
import { clusterDown } from '../../scripts/cluster/control-plane.ts';
import { STATE_FILE, type TestClusterState } from './state.ts';

export default async function globalTeardown(): Promise<void> {
  const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as TestClusterState;
  if (state.created && state.name && process.env.SLIPWAY_KEEP_CLUSTER !== '1') await clusterDown(state.name);
}
