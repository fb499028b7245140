// The operator as a real process (`node operator/main.ts`), killed with SIGKILL in the middle
// of a bundle's chain and started again: the chain ends the same way, with no duplicate Jobs.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { bundle, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig } from '../../support/cluster.ts';
import {
  environmentReporting,
  bundleInPhase,
  clients,
  conditionOf,
  createEnvironment,
  finishJobPod,
  get,
  jobsOf,
  projectNamespace,
  spawnOperator,
  waitForJob,
  type TestNamespace,
  waitForBuildJob,
  finishBuildPod,
  BUILD_NAMESPACE,
} from './support.ts';
import { buildJobName } from '../../../operator/names.ts';

let kc: KubeConfig;
let ns: TestNamespace;
const children: ChildProcess[] = [];
let output = '';

function startProcess(identity: string): ChildProcess {
  const child = spawnOperator(ns.name, identity, (d) => (output = (output + d).slice(-20_000)));
  children.push(child);
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-restart');
  await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-web', engine: 'mysql' });
});

afterAll(async () => {
  for (const child of children) await kill9(child);
  await ns?.remove();
});

describe('operator: restarts', () => {
  it('killed with SIGKILL mid-chain, twice, ends the same way without duplicate Jobs', async () => {
    try {
      const first = startProcess('operator-1');
      await clients(kc).slipway.create(
        'Bundle',
        bundle(
          'b1',
          inNamespace(ns.name),
          spec({
            deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: true },
          }),
        ),
      );
      await waitForBuildJob(kc, ns.name, 'b1');
      await kill9(first);

      // The build finishes while no operator runs.
      await finishBuildPod(kc, ns.name, 'b1', 'Succeeded');
      const second = startProcess('operator-2');
      await waitForJob(kc, ns.name, 'b1-backup');
      await bundleInPhase(kc, ns.name, 'b1', 'BackingUp');
      await kill9(second);

      const third = startProcess('operator-3');
      await finishJobPod(kc, ns.name, 'b1-backup', 'Succeeded');
      const b = await bundleInPhase(kc, ns.name, 'b1', 'Ready');
      expect(conditionOf(b, 'Built')).toBe('True/Succeeded');
      expect(conditionOf(b, 'BackedUp')).toBe('True/Succeeded');
      expect(conditionOf(b, 'Deployed')).toBe('True/Succeeded');

      const jobs = (await jobsOf(kc, ns.name, 'b1')).map((j) => j.metadata?.name);
      expect(jobs).toEqual([buildJobName(ns.name, 'b1'), 'b1-backup']);
      const buildPods = await clients(kc).core.listNamespacedPod({
        namespace: BUILD_NAMESPACE,
        labelSelector: `batch.kubernetes.io/job-name=${buildJobName(ns.name, 'b1')}`,
      });
      expect(buildPods.items).toHaveLength(1);
      const d = await get.deployment(kc, ns.name, 'shop-web');
      expect(d.spec?.template.spec?.containers[0]?.image).toBe(b.status?.image);
      expect(
        (await environmentReporting(kc, ns.name, 'staging', 'b1', 'Succeeded')).status?.currentBundle,
      ).toBe('b1');
      // The last replica holds the lease.
      const lease = await kc
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: 'slipway-operator', namespace: ns.name });
      expect(lease.spec?.holderIdentity).toBe('operator-3');

      // SIGTERM: a clean exit that releases the lease for the next replica.
      const exited = new Promise<number | null>((resolve) => third.once('exit', (code) => resolve(code)));
      third.kill('SIGTERM');
      expect(await exited).toBe(0);
      const released = await kc
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: 'slipway-operator', namespace: ns.name });
      expect(released.spec?.holderIdentity ?? '').toBe('');
    } catch (err) {
      process.stderr.write(`\n--- operator output ---\n${output}\n`);
      throw err;
    }
  });
});
