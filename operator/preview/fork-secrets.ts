// What a fork's preview keeps of its environment's pod: whatever a fork's code can read, its
// author can read, so every Secret the pod names is left out — environment variables, envFrom,
// Secret volumes and projected Secret sources — but those spec.previews.forkSecrets names; so is
// every volume that is not the pod's own scratch or configuration (a claim, a host path, a CSI
// or network volume: the environment's data), and its ServiceAccount (it runs as the namespace's
// default, with no token mounted: cloud identities bound to the environment's account stay
// there). Pure: copies.ts applies it to the Deployment's copy.
import type { V1Container, V1PodSpec, V1Volume } from '@kubernetes/client-node';

export function withoutSecrets(pod: V1PodSpec, allowed: ReadonlySet<string>): V1PodSpec {
  const keeps = (name: string | undefined) => name !== undefined && allowed.has(name);
  const volumes: V1Volume[] = [];
  const dropped = new Set<string>();
  for (const volume of pod.volumes ?? []) {
    const kept =
      volume.emptyDir || volume.configMap || volume.downwardAPI || volume.projected || volume.secret;
    if (!kept || (volume.secret && !keeps(volume.secret.secretName))) {
      dropped.add(volume.name);
      continue;
    }
    if (volume.projected) {
      const sources = (volume.projected.sources ?? []).filter((s) => !s.secret || keeps(s.secret.name));
      // A ServiceAccount token is a credential too.
      const left = sources.filter((s) => !s.serviceAccountToken);
      if (left.length === 0) {
        dropped.add(volume.name);
        continue;
      }
      volumes.push({ ...volume, projected: { ...volume.projected, sources: left } });
      continue;
    }
    volumes.push(volume);
  }
  const container = (c: V1Container): V1Container => ({
    ...c,
    env: (c.env ?? []).filter((e) => !e.valueFrom?.secretKeyRef || keeps(e.valueFrom.secretKeyRef.name)),
    envFrom: (c.envFrom ?? []).filter((e) => !e.secretRef || keeps(e.secretRef.name)),
    volumeMounts: (c.volumeMounts ?? []).filter((m) => !dropped.has(m.name)),
  });
  const { serviceAccountName: _account, serviceAccount: _legacy, ...rest } = pod;
  return {
    ...rest,
    automountServiceAccountToken: false,
    containers: pod.containers.map(container),
    ...(pod.initContainers ? { initContainers: pod.initContainers.map(container) } : {}),
    volumes,
  };
}
