// slipway_object_condition on a real API server: each object's Ready as the operator's /metrics
// shows it, from its caches — what an alert on "not Ready" reads.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { registry } from '../../../lib/metrics.ts';
import type { Operator } from '../../../operator/operator.ts';
import * as build from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import { clients, projectNamespace, startOperator, type TestNamespace } from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;

/** The metric's lines for one object, as `curl /metrics` shows them. */
async function conditionLines(kind: string, name: string): Promise<string[]> {
  const text = await registry.metrics();
  const prefix = `slipway_object_condition{kind="${kind}",namespace="${ns.name}",name="${name}",type="Ready",`;
  return text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-readiness');
  await clients(kc).slipway.create(
    'Environment',
    build.environment(
      'lost',
      build.inNamespace(ns.name),
      build.spec({
        deploymentRef: { name: 'no-such-deployment' },
        database: { engine: 'mysql', secretRef: { name: 'db' } },
      }),
    ),
  );
  operator = await startOperator(kc, ns.name);
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('slipway_object_condition', () => {
  it("shows each object's Ready: 1 on the status it has, 0 on the others; nothing once the operator stops", async () => {
    const project = await waitFor('the project Ready in /metrics', async () => {
      const lines = await conditionLines('Project', 'shop');
      return lines.includes('status="True"} 1') ? lines : undefined;
    });
    expect(project.sort()).toEqual(['status="False"} 0', 'status="True"} 1', 'status="Unknown"} 0']);
    const environment = await waitFor('the environment not Ready in /metrics', async () => {
      const lines = await conditionLines('Environment', 'lost');
      return lines.includes('status="False"} 1') ? lines : undefined;
    });
    expect(environment.sort()).toEqual(['status="False"} 1', 'status="True"} 0', 'status="Unknown"} 0']);
    await operator.stop();
    expect(await conditionLines('Project', 'shop')).toEqual([]);
  });
});
