// The namespace build Jobs run in (docs/adr/0004), made where the operator runs outside the
// chart (npm start, the test tiers, the benches) as the chart makes it: the one namespace whose
// Pod Security allows rootless BuildKit (Unconfined seccomp and AppArmor), with the deny-all
// policy the chart makes there. The NetworkPolicy of what builds reach is the operator's to write
// there (rules/build-network-policy.ts; what builds reach on the real node: operatorEnvFor in
// real-node.ts).
import {
  CoreV1Api,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { apiStatus } from '../../lib/kube.ts';
import { buildIsolationPolicy } from '../../rules/build-network-policy.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';

export const BUILD_NAMESPACE_LABELS = {
  'pod-security.kubernetes.io/enforce': 'privileged',
  'app.kubernetes.io/managed-by': 'slipway',
};

export async function installBuildNamespace(kc: KubeConfig, name = DEFAULT_BUILD_NAMESPACE): Promise<void> {
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
  const body = buildIsolationPolicy(name);
  await kc
    .makeApiClient(NetworkingV1Api)
    .createNamespacedNetworkPolicy({ namespace: name, body })
    .catch((err: unknown) => {
      if (apiStatus(err) !== 409) throw err;
    });
}
