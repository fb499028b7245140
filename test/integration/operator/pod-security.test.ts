// Pod Security on a real API server (its PodSecurity admission): the pods Slipway makes in an
// application's namespace (backups) are admitted where the namespace enforces "restricted", so
// application namespaces can; a build pod (rootless BuildKit: Unconfined seccomp and AppArmor,
// a hostPath store) is admitted only in a "privileged" namespace, which is why builds run in
// the build namespace (docs/adr/0004).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { backupJob } from '../../../operator/jobs/backup-job.ts';
import { buildJob } from '../../../operator/jobs/build-job.ts';
import { loadConfig } from '../../../operator/config.ts';
import { apiMessage, mergePatch } from '../../../lib/kube.ts';
import { bundle, database, environment, project, spec, stored } from '../../support/builders.ts';
import { createNamespace, testKubeConfig } from '../../support/cluster.ts';
import { clients } from './support.ts';

let kc: KubeConfig;
const namespaces: Array<{ name: string; remove: () => Promise<void> }> = [];

async function namespaceEnforcing(level: 'restricted' | 'privileged'): Promise<string> {
  const ns = await createNamespace(kc, `psa-${level}`);
  namespaces.push(ns);
  await clients(kc).core.patchNamespace(
    { name: ns.name, body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': level } } } },
    mergePatch,
  );
  return ns.name;
}

/** Whether the API server admits the Job's pod in `namespace` (a dry run: nothing is made). */
async function admitted(template: V1PodTemplateSpec, namespace: string): Promise<string> {
  const pod: V1Pod = { metadata: { name: 'probe', namespace }, spec: template.spec! };
  try {
    await clients(kc).core.createNamespacedPod({ namespace, body: pod, dryRun: 'All' });
    return 'admitted';
  } catch (err) {
    return apiMessage(err);
  }
}

beforeAll(() => {
  kc = testKubeConfig();
});

afterAll(async () => {
  for (const ns of namespaces) await ns.remove();
});

describe('Pod Security of the pods Slipway makes', () => {
  const settings = loadConfig({
    SLIPWAY_REGISTRY: 'registry.test:5000',
    SLIPWAY_BUILD_STORE: '/var/lib/slipway',
  });

  it('a backup pod is admitted where the application namespace enforces "restricted"', async () => {
    const restricted = await namespaceEnforcing('restricted');
    for (const engine of ['mysql', 'postgresql'] as const) {
      const env = environment(
        'staging',
        stored(),
        spec({ ...database, database: { engine, secretRef: { name: 'db' } } }),
      );
      const job = backupJob(bundle('b1', stored()), env, settings);
      expect(await admitted(job.spec!.template, restricted)).toBe('admitted');
    }
  });

  it('a build pod is refused there, and admitted in a "privileged" namespace such as the build namespace', async () => {
    const restricted = await namespaceEnforcing('restricted');
    const privileged = await namespaceEnforcing('privileged');
    const job = buildJob(
      bundle('b1', stored()),
      project(undefined, stored()),
      'registry.test:5000/t/shop:b1',
      settings,
    );
    expect(await admitted(job.spec!.template, restricted)).toMatch(
      /violates PodSecurity "restricted:latest"/,
    );
    expect(await admitted(job.spec!.template, privileged)).toBe('admitted');
  });
});
