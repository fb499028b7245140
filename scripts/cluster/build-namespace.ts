// The namespace build Jobs run in (docs/adr/0004), made where the operator runs outside the
// chart (npm start, the test tiers, the benches) as the chart makes it: the one namespace whose
// Pod Security allows rootless BuildKit (Unconfined seccomp and AppArmor), with the
// NetworkPolicy around every build (rules/build-network-policy.ts).
import {
  CoreV1Api,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { apiStatus } from '../../lib/kube.ts';
import {
  buildNetworkPolicy,
  hostButKubelet,
  type BuildNetworkPolicyOptions,
} from '../../rules/build-network-policy.ts';
import type { RealNode } from './real-node.ts';

/**
 * What builds reach inside on the real node: its host address, where DNS, the registry and the
 * e2e tier's git server, databases and (under npm start) the gateway listen, but the kubelet.
 */
export const realNodeBuildPolicy = (node: RealNode | undefined): BuildNetworkPolicyOptions =>
  node ? { allow: [hostButKubelet(node.hostAddress)] } : {};
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';

export const BUILD_NAMESPACE_LABELS = {
  'pod-security.kubernetes.io/enforce': 'privileged',
  'app.kubernetes.io/managed-by': 'slipway',
};

export async function installBuildNamespace(
  kc: KubeConfig,
  policy: BuildNetworkPolicyOptions = {},
  name = DEFAULT_BUILD_NAMESPACE,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const metadata = { name, labels: BUILD_NAMESPACE_LABELS };
  try {
    await core.createNamespace({ body: { metadata } });
  } catch (err) {
    if (apiStatus(err) !== 409) throw err;
    await core.patchNamespace(
      { name, body: { metadata: { labels: BUILD_NAMESPACE_LABELS } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
  const networking = kc.makeApiClient(NetworkingV1Api);
  const body = buildNetworkPolicy(name, policy);
  try {
    await networking.createNamespacedNetworkPolicy({ namespace: name, body });
  } catch (err) {
    if (apiStatus(err) !== 409) throw err;
    await networking.replaceNamespacedNetworkPolicy({ name: body.metadata!.name!, namespace: name, body });
  }
}
