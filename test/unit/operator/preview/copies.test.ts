// What serves a preview, made from its environment's objects: nothing of the environment's
// selection reaches the copies, and the host is a host name.
import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import type { PreviewObject } from '../../../../crds/index.ts';
import {
  deploymentCopy,
  ingressFor,
  previewHost,
  routedService,
  selectsPods,
  serviceCopy,
  type PreviewSource,
} from '../../../../operator/preview/copies.ts';

const preview: PreviewObject = {
  apiVersion: 'slipway.dev/v1alpha1',
  kind: 'Preview',
  metadata: { name: 'shop-pr-7', namespace: 'team', uid: 'u-7' },
  spec: {
    projectRef: { name: 'shop' },
    provider: 'github',
    number: 7,
    branch: 'f',
    headCommit: 'a'.repeat(40),
    fork: false,
  },
};
const deployment: V1Deployment = {
  metadata: { name: 'shop-web', namespace: 'team', labels: { app: 'shop' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'shop' } },
    template: {
      metadata: { labels: { app: 'shop', tier: 'web' }, annotations: { keep: 'me' } },
      spec: {
        containers: [
          { name: 'web', image: 'registry/shop:old', env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'proxy:1' },
        ],
      },
    },
  },
};
const source: PreviewSource = {
  preview,
  settings: { ingressClassName: 'nginx', tlsSecretRef: { name: 'wild' } },
  deployment,
  container: 'web',
  image: 'registry/team/shop:b@sha256:' + 'f'.repeat(64),
  bundle: 'shop-0123456789ab',
  host: 'pr-7.shop.example.com',
};

describe('the copies of a preview', () => {
  it("the Deployment: one replica, the built image in the environment's container alone, selected by the preview's label only", () => {
    const copy = deploymentCopy(source);
    expect(copy.metadata).toMatchObject({
      name: 'shop-web-pr-7',
      ownerReferences: [{ kind: 'Preview', name: 'shop-pr-7', uid: 'u-7', controller: true }],
    });
    expect(copy.spec?.replicas).toBe(1);
    expect(copy.spec?.selector).toEqual({ matchLabels: { 'slipway.dev/preview': 'shop-pr-7' } });
    expect(copy.spec?.template.metadata?.labels?.app).toBeUndefined();
    expect(copy.spec?.template.metadata?.annotations).toMatchObject({
      keep: 'me',
      'slipway.dev/bundle': 'shop-0123456789ab',
    });
    expect(copy.spec?.template.spec?.containers.map((c) => c.image)).toEqual([source.image, 'proxy:1']);
    expect(copy.spec?.template.spec?.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it("a Service that selects the environment's pods is copied with its ports, selecting the preview's", () => {
    const service: V1Service = {
      metadata: { name: 'shop' },
      spec: {
        type: 'NodePort',
        clusterIP: '10.0.0.9',
        selector: { app: 'shop' },
        ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }],
      },
    };
    expect(selectsPods(service, deployment)).toBe(true);
    expect(selectsPods({ spec: { selector: { app: 'other' } } }, deployment)).toBe(false);
    expect(selectsPods({ spec: {} }, deployment)).toBe(false);
    const copy = serviceCopy(source, service);
    expect(copy.spec).toEqual({
      type: 'ClusterIP',
      selector: { 'slipway.dev/preview': 'shop-pr-7' },
      ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
    });
    const ingress = ingressFor(source, copy);
    expect(ingress.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['pr-7.shop.example.com'], secretName: 'wild' }],
      rules: [
        {
          host: 'pr-7.shop.example.com',
          http: { paths: [{ backend: { service: { name: 'shop-pr-7', port: { name: 'http' } } } }] },
        },
      ],
    });
  });

  it('routes the host to a Service with an http port, the one named as the Deployment first, to that port', () => {
    const service = (
      name: string,
      ports: Array<{ name?: string; port: number; appProtocol?: string }>,
    ): V1Service => ({
      metadata: { name },
      spec: { selector: { app: 'shop' }, ports },
    });
    const metrics = service('a-metrics', [{ name: 'metrics', port: 9090 }]);
    const web = service('shop-web', [
      { name: 'grpc', port: 9000 },
      { name: 'http', port: 80 },
    ]);
    const other = service('b-web', [{ port: 8080, appProtocol: 'http' }]);
    expect(routedService([metrics, other, web], deployment)).toBe(web);
    expect(routedService([metrics, other], deployment)).toBe(other);
    expect(routedService([metrics], deployment)).toBe(metrics);
    expect(
      ingressFor(source, serviceCopy(source, web)).spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port,
    ).toEqual({
      name: 'http',
    });
  });

  it("a fork's copy keeps no Secret but those forkSecrets names, no claim, annotation or ServiceAccount of the environment", () => {
    const pod = structuredClone(deployment);
    pod.spec!.template.spec = {
      containers: [
        {
          name: 'web',
          image: 'x',
          env: [
            { name: 'PLAIN', value: '1' },
            { name: 'DB', valueFrom: { secretKeyRef: { name: 'prod-db', key: 'password' } } },
            { name: 'TEST', valueFrom: { secretKeyRef: { name: 'preview-keys', key: 'k' } } },
          ],
          envFrom: [{ secretRef: { name: 'prod-env' } }, { configMapRef: { name: 'settings' } }],
          volumeMounts: [
            { name: 'tls', mountPath: '/tls' },
            { name: 'token', mountPath: '/var/run/token' },
            { name: 'data', mountPath: '/data' },
          ],
        },
      ],
      volumes: [
        { name: 'tls', secret: { secretName: 'prod-tls' } },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
        { name: 'data', emptyDir: {} },
        { name: 'uploads', persistentVolumeClaim: { claimName: 'staging-uploads' } },
      ],
      serviceAccountName: 'staging-deployer',
    };
    pod.spec!.template.metadata!.annotations = { 'vault.hashicorp.com/agent-inject': 'true' };
    const fork = { ...preview, spec: { ...preview.spec, fork: true } };
    const copy = deploymentCopy({
      ...source,
      preview: fork,
      deployment: pod,
      settings: { forkSecrets: [{ name: 'preview-keys' }] },
    });
    const spec = copy.spec!.template.spec!;
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.serviceAccountName).toBeUndefined();
    expect(Object.keys(copy.spec!.template.metadata!.annotations!)).toEqual(['slipway.dev/bundle']);
    expect(spec.containers[0]!.env!.map((e) => e.name)).toEqual(['PLAIN', 'TEST']);
    expect(spec.containers[0]!.envFrom).toEqual([{ configMapRef: { name: 'settings' } }]);
    expect(spec.volumes!.map((v) => v.name)).toEqual(['data']);
    expect(spec.containers[0]!.volumeMounts!.map((m) => m.name)).toEqual(['data']);
    // A pull request from the repository itself keeps its environment's pod as it is.
    expect(deploymentCopy({ ...source, deployment: pod }).spec!.template.spec!.volumes).toHaveLength(4);
  });

  it('the host: placeholders filled, the branch made a DNS label, and a refusal when it is no host name', () => {
    const values = { number: 7, branch: 'Feature/New_Page!', project: 'shop', namespace: 'team' };
    expect(previewHost('{branch}-{number}.{project}.{namespace}.example.com', values)).toEqual({
      host: 'feature-new-page-7.shop.team.example.com',
    });
    expect(previewHost('{branch}.example.com', { ...values, branch: '___' })).toEqual({
      host: 'branch.example.com',
    });
    expect(previewHost('pr-{number}..example.com', values)).toEqual({
      problem: 'previews.host pr-{number}..example.com gives pr-7..example.com, which is not a host name',
    });
  });
});
