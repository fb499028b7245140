// What serves a preview, made from its environment's objects: a copy of the Deployment, of each
// Service that selects its pods, and an Ingress for the preview's host. Pure: the controller
// applies what these return. The copies select their pods by the preview's own label alone, so
// no Service of the environment ever sends its traffic to a preview, and every copy is owned by
// the Preview: deleting it removes them (the garbage collector does). A fork's copy keeps no
// Secret but those previews.forkSecrets names (fork-secrets.ts).
import { controllerReferenceTo } from '../../crds/owner-references.ts';
import type { V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import type { PreviewObject, PreviewsSettings } from '../../crds/index.ts';
import {
  ANNOTATION_BUNDLE,
  LABEL_PREVIEW,
  LABEL_PROJECT,
  MANAGED_BY,
  labelValue,
} from '../../crds/labels.ts';
import { previewObjectName } from '../../rules/preview-names.ts';
import { MANAGER } from '../names.ts';
import { withoutSecrets } from './fork-secrets.ts';

export interface PreviewSource {
  preview: PreviewObject;
  settings: Pick<PreviewsSettings, 'ingressClassName' | 'tlsSecretRef' | 'forkSecrets'>;
  deployment: V1Deployment;
  /** The environment's container that runs the built image. */
  container: string;
  /** The built image, by digest, and the bundle that built it. */
  image: string;
  bundle: string;
  host: string;
}

/** The controller reference of what a Preview owns: it goes with the Preview. */
export const ownedByPreview = (preview: PreviewObject) => controllerReferenceTo('Preview', preview);

/** The labels of everything that serves the preview; the pods are selected by the first alone. */
export function previewLabels(preview: PreviewObject): Record<string, string> {
  return {
    [LABEL_PREVIEW]: labelValue(preview.metadata.name),
    [LABEL_PROJECT]: labelValue(preview.spec.projectRef.name),
    [MANAGED_BY]: MANAGER,
  };
}

const selectorOf = (preview: PreviewObject) => ({ [LABEL_PREVIEW]: labelValue(preview.metadata.name) });

function metadata(name: string, source: PreviewSource, extra: Record<string, string> = {}) {
  return {
    name,
    namespace: source.preview.metadata.namespace,
    labels: previewLabels(source.preview),
    annotations: { [ANNOTATION_BUNDLE]: source.bundle, ...extra },
    ownerReferences: [ownedByPreview(source.preview)],
  };
}

/** The Deployment's copy: one replica, the built image, its own labels and selector. */
export function deploymentCopy(source: PreviewSource): V1Deployment {
  const { deployment, preview } = source;
  const template = structuredClone(deployment.spec?.template ?? {});
  const containers = (template.spec?.containers ?? []).map((c) =>
    c.name === source.container ? { ...c, image: source.image } : c,
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(previewObjectName(deployment.metadata?.name ?? '', preview.spec.number), source),
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorOf(preview) },
      ...(deployment.spec?.progressDeadlineSeconds
        ? { progressDeadlineSeconds: deployment.spec.progressDeadlineSeconds }
        : {}),
      template: {
        metadata: {
          // Not the environment's labels: its Services and NetworkPolicies select by them.
          labels: previewLabels(preview),
          // A fork's pod gets none of the environment's (an agent injecting secrets reads them).
          annotations: {
            ...(preview.spec.fork ? {} : template.metadata?.annotations),
            [ANNOTATION_BUNDLE]: source.bundle,
          },
        },
        spec: preview.spec.fork
          ? withoutSecrets(
              { ...template.spec, containers },
              new Set(source.settings.forkSecrets?.map((s) => s.name)),
            )
          : { ...template.spec, containers },
      },
    },
  };
}

/** Whether `service` sends traffic to the pods of `deployment` (its selector matches their labels). */
export function selectsPods(service: V1Service, deployment: V1Deployment): boolean {
  const selector = service.spec?.selector;
  const labels = deployment.spec?.template?.metadata?.labels ?? {};
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** A Service's copy: its ports, ClusterIP, selecting the preview's pods. */
export function serviceCopy(source: PreviewSource, service: V1Service): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(previewObjectName(service.metadata?.name ?? '', source.preview.spec.number), source),
    spec: {
      type: 'ClusterIP',
      selector: selectorOf(source.preview),
      ports: (service.spec?.ports ?? []).map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        port: p.port,
        ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
        protocol: p.protocol ?? 'TCP',
        ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
      })),
    },
  };
}

type ServicePort = NonNullable<NonNullable<V1Service['spec']>['ports']>[number];
const isHttp = (p: ServicePort) =>
  /^(http|web)$/i.test(p.name ?? '') || /^(http|kubernetes\.io\/h2c)$/i.test(p.appProtocol ?? '');
/** The port the host is routed to: the one named http (or web, or with appProtocol http), else the first. */
const httpPort = (service: V1Service) => service.spec?.ports?.find(isHttp) ?? service.spec?.ports?.[0];

/**
 * Of the Services that select the environment's pods, the one a preview's host is routed to: one
 * with an http port first, then the one named as the Deployment, then by name.
 */
export function routedService(services: V1Service[], deployment: V1Deployment): V1Service | undefined {
  const rank = (s: V1Service) =>
    (s.spec?.ports?.some(isHttp) ? 0 : 2) + (s.metadata?.name === deployment.metadata?.name ? 0 : 1);
  return [...services].sort(
    (a, b) => rank(a) - rank(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  )[0];
}

/** The Ingress of the preview's host, to the copy of the routed Service's http port. */
export function ingressFor(source: PreviewSource, service: V1Service): V1Ingress {
  const port = httpPort(service);
  const { settings } = source;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: metadata(
      previewObjectName(source.preview.spec.projectRef.name, source.preview.spec.number),
      source,
    ),
    spec: {
      ...(settings.ingressClassName ? { ingressClassName: settings.ingressClassName } : {}),
      ...(settings.tlsSecretRef
        ? { tls: [{ hosts: [source.host], secretName: settings.tlsSecretRef.name }] }
        : {}),
      rules: [
        {
          host: source.host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: {
                  service: {
                    name: service.metadata?.name ?? '',
                    port: port?.name ? { name: port.name } : { number: port?.port ?? 80 },
                  },
                },
              },
            ],
          },
        },
      ],
    },
  };
}

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;

/** previews.host with its placeholders filled, or why it is not a host name. */
export function previewHost(
  template: string,
  values: { number: number; branch: string; project: string; namespace: string },
): { host: string } | { problem: string } {
  const branch =
    values.branch
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 40)
      .replace(/^-+|-+$/g, '') || 'branch';
  const host = template
    .replaceAll('{number}', String(values.number))
    .replaceAll('{branch}', branch)
    .replaceAll('{project}', values.project)
    .replaceAll('{namespace}', values.namespace);
  if (!DNS_NAME.test(host))
    return { problem: `previews.host ${template} gives ${host}, which is not a host name` };
  return { host };
}
