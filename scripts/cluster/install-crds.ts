// Installs (or updates) the generated CRDs and waits until the API server serves them, and the
// admission policies that go with them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  KubernetesObjectApi,
  loadAllYaml,
  loadYaml,
  type KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { waitFor } from '../../lib/wait.ts';
import { ADMISSION_DIR, CRD_DIR } from '../../crds/paths.ts';
import { writersOf } from '../../crds/writers.ts';
import { addWriters } from './writers.ts';

export function generatedCrds(): V1CustomResourceDefinition[] {
  return (
    readdirSync(CRD_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      // loadYaml maps wire names to the client's model names (enum → _enum and so on); without it the
      // typed client would silently drop them when it serialises the object.
      .map((f) => loadYaml<V1CustomResourceDefinition>(readFileSync(join(CRD_DIR, f), 'utf8')))
  );
}

export async function installCrds(kc: KubeConfig, timeoutMs = 60_000): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const crds = generatedCrds();
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
      const current = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: current.metadata!.resourceVersion } },
      });
    }
  }
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    await waitFor(
      `CRD ${name} to be established`,
      async () => {
        const current = await api.readCustomResourceDefinition({ name });
        return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      },
      timeoutMs,
    );
  }
}

/**
 * Installs (or updates) the admission policies and their bindings (crds/admission.ts, rendered
 * into deploy/admission/), as the chart does with `admissionPolicies.enabled`.
 */
export async function installAdmissionPolicies(kc: KubeConfig): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const file of readdirSync(ADMISSION_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    for (const object of loadAllYaml(readFileSync(join(ADMISSION_DIR, file), 'utf8')) as KubernetesObject[]) {
      // The policy's parameter: its users are added to those a cluster lists already.
      if (object.kind === 'ConfigMap') {
        await addWriters(kc, writersOf((object as V1ConfigMap).data));
        continue;
      }
      try {
        await client.create(object);
      } catch (err) {
        if ((err as { code?: number }).code !== 409) throw err;
        const current = await client.read(object as KubernetesObject & { metadata: { name: string } });
        await client.replace({
          ...object,
          metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion },
        });
      }
    }
  }
}
