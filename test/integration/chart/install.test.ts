// `helm install` of charts/slipway into the test cluster with the real helm: the operator,
// gateway and status API Deployments become Available (kwok plays the kubelet, so images never
// run), the installed ServiceAccounts hold exactly the permissions of each process's rbac.ts,
// and `helm uninstall` takes everything away again, the cluster-wide roles included.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { PolicyRule } from '../../../lib/rbac.ts';
import { buildNamespaceRules, leaderElectionRules, operatorRules } from '../../../operator/rbac.ts';
import { statusApiRules } from '../../../status-api/rbac.ts';
import { gatewayBuildNamespaceRules, gatewayRules } from '../../../webhook-gateway/rbac.ts';
import { createNamespace, testKubeConfig, testState, waitFor } from '../../support/cluster.ts';
import { canIEach, impersonating } from '../../support/rbac.ts';
import { CHART, HELM_BUILD_TIMEOUT_MS, helm } from '../../unit/chart/helm.ts';

const exec = promisify(execFile);
const admin = testKubeConfig();
let ns: { name: string; remove: () => Promise<void> };
let release: string;
/** The release's build namespace (operator.buildNamespace), which it makes. */
let builds: string;
let installed = false;

/** helm against the test cluster, in the test namespace. */
function helmRun(args: string[]) {
  return exec(helm(), [...args, '--namespace', ns.name, '--kubeconfig', testState().kubeconfig], {
    timeout: 120_000,
  });
}

/** Every "verb group/resource" a list grants, as canIEach asks it, answered yes. */
function allowedBy(rules: readonly PolicyRule[], namespace: string): Record<string, 'yes'> {
  const entries = rules.flatMap((r) =>
    r.apiGroups.flatMap((g) =>
      r.resources.flatMap((res) => r.verbs.map((v) => [`${v} ${g}/${res} in ${namespace}`, 'yes'] as const)),
    ),
  );
  return Object.fromEntries(entries);
}

const serviceAccount = (component: string) =>
  `system:serviceaccount:${ns.name}:${release}-slipway-${component}`;
const as = (component: string): KubeConfig => impersonating(admin, serviceAccount(component));

beforeAll(async () => {
  helm();
  ns = await createNamespace(admin, 'chart');
  release = `sw-${ns.name.slice(-6)}`;
  builds = `${ns.name}-builds`;
  // Default values but one replica each (so no PodDisruptionBudgets): fewer pods to wait for;
  // the CRDs are the test cluster's own (crd-upgrade.test.ts installs CRDs through Helm).
  await helmRun([
    'install',
    release,
    CHART,
    '--set',
    // The test cluster has the CRDs and admission policies already, as every way of running it does.
    // Its own build namespace, which the release makes (the test cluster's slipway-builds is not Helm's).
    `operator.replicas=1,statusApi.replicas=1,crds.enabled=false,admissionPolicies.enabled=false,operator.buildNamespace=${builds}`,
  ]);
  installed = true;
}, HELM_BUILD_TIMEOUT_MS);

afterAll(async () => {
  if (installed) await helmRun(['uninstall', release, '--wait']).catch(() => undefined);
  await ns?.remove();
});

describe('helm install into the test cluster', () => {
  it('brings the operator, gateway and status API Deployments to Available', async () => {
    const apps = admin.makeApiClient(AppsV1Api);
    const names = ['operator', 'gateway', 'status-api'].map((c) => `${release}-slipway-${c}`);
    const available = async (name: string) => {
      const d = await apps.readNamespacedDeployment({ name, namespace: ns.name });
      return d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true;
    };
    await waitFor(
      'the three Deployments to be Available',
      async () => {
        const states = await Promise.all(names.map(available));
        return states.every(Boolean);
      },
      90_000,
    );
    const list = await apps.listNamespacedDeployment({ namespace: ns.name });
    expect(list.items.map((d) => d.metadata?.name).sort()).toEqual([...names].sort());
    for (const d of list.items) expect(d.status?.readyReplicas).toBe(1);
  });

  it("gives each installed ServiceAccount its process's rules, where the chart binds them", async () => {
    // Default values: operator and gateway cluster-wide (asked here in another namespace), the
    // leader election and the status API in the release namespace.
    const elsewhere = 'default';
    const operatorExpected = {
      ...allowedBy(operatorRules, elsewhere),
      ...allowedBy(leaderElectionRules, ns.name),
      ...allowedBy(buildNamespaceRules, builds),
      [`create coordination.k8s.io/leases in ${elsewhere}`]: 'no',
      [`delete /secrets in ${elsewhere}`]: 'no',
    };
    const gatewayExpected = {
      ...allowedBy(gatewayRules, elsewhere),
      ...allowedBy(gatewayBuildNamespaceRules, builds),
      [`get /pods/log in ${elsewhere}`]: 'no',
      [`delete slipway.dev/bundles in ${elsewhere}`]: 'no',
      [`create /secrets in ${elsewhere}`]: 'no',
    };
    const statusApiExpected = {
      ...allowedBy(statusApiRules, ns.name),
      [`list slipway.dev/statuspages in ${elsewhere}`]: 'no',
      [`get /secrets in ${ns.name}`]: 'no',
      [`patch slipway.dev/statuscomponents/status in ${ns.name}`]: 'no',
    };
    for (const [component, expected] of [
      ['operator', operatorExpected],
      ['gateway', gatewayExpected],
      ['status-api', statusApiExpected],
    ] as const) {
      expect({ component, answers: await canIEach(as(component), ns.name, Object.keys(expected)) }).toEqual({
        component,
        answers: expected,
      });
    }
  });

  it('makes the build namespace, the one where Pod Security allows rootless BuildKit', async () => {
    const made = await admin.makeApiClient(CoreV1Api).readNamespace({ name: builds });
    expect(made.metadata?.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'privileged' });
  });

  it('takes everything away on uninstall, the ClusterRoles included', async () => {
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const selector = `app.kubernetes.io/instance=${release}`;
    const clusterRoles = await rbac.listClusterRole({ labelSelector: selector });
    expect(clusterRoles.items.map((r) => r.metadata?.name).sort()).toEqual([
      `${release}-slipway-gateway`,
      `${release}-slipway-operator`,
      `${release}-slipway-operator-cluster-ranges`,
    ]);
    await helmRun(['uninstall', release, '--wait']);
    installed = false;
    expect((await rbac.listClusterRole({ labelSelector: selector })).items).toEqual([]);
    expect((await rbac.listClusterRoleBinding({ labelSelector: selector })).items).toEqual([]);
    const apps = admin.makeApiClient(AppsV1Api);
    expect((await apps.listNamespacedDeployment({ namespace: ns.name })).items).toEqual([]);
    // The build namespace goes with the release (it is being deleted, or gone).
    const left = await admin
      .makeApiClient(CoreV1Api)
      .readNamespace({ name: builds })
      .catch(() => undefined);
    expect(left === undefined || left.status?.phase === 'Terminating').toBe(true);
  });
});
