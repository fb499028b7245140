// The switches a user flips at install time, and the mistakes the chart refuses.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { admissionPolicies } from '../../../crds/admission.ts';
import { customResourceDefinition } from '../../../crds/crd.ts';
import { kinds } from '../../../crds/index.ts';
import {
  CHART,
  HELM_BUILD_TIMEOUT_MS,
  NAMESPACE,
  RELEASE,
  componentName,
  envOf,
  helm,
  named,
  ofKind,
  run,
  setArgs,
  template,
  type Manifest,
} from './helm.ts';

type EnvVar = { name: string; value?: string; valueFrom?: unknown };
type Deployment = Manifest & {
  spec: {
    replicas: number;
    strategy?: { type: string };
    template: {
      spec: {
        containers: { env: EnvVar[]; volumeMounts?: unknown[] }[];
        volumes: {
          name: string;
          emptyDir?: unknown;
          persistentVolumeClaim?: { claimName: string };
          configMap?: unknown;
        }[];
      };
    };
  };
};

describe('chart options', () => {
  beforeAll(() => {
    helm();
  }, HELM_BUILD_TIMEOUT_MS);

  it('passes helm lint --strict', () => {
    const result = run(['lint', '--strict', CHART]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it('installs the generated CRD of every kind with the release, kept on uninstall', () => {
    const expected = kinds.map((def) => customResourceDefinition(def).metadata.name).sort();
    expect(expected).toHaveLength(9);
    const files = readdirSync(join(CHART, 'templates', 'crds')).filter((f) => f.endsWith('.yaml'));
    expect(files.map((f) => f.replace(/\.yaml$/, '')).sort()).toEqual(expected);
    // Templates, not the crds/ folder: so `helm upgrade` applies a changed schema.
    expect(readdirSync(CHART)).not.toContain('crds');
    const crds = ofKind(template(), 'CustomResourceDefinition');
    expect(crds.map((c) => c.metadata.name).sort()).toEqual(expected);
    for (const crd of crds) {
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      expect(crd.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    }
    // The rendered CRD is the generated one, whatever the chart adds around it.
    const bundle = named(crds, 'CustomResourceDefinition', 'bundles.slipway.dev') as Manifest & {
      spec: unknown;
    };
    expect(bundle.spec).toEqual(customResourceDefinition(kinds.find((k) => k.kind === 'Bundle')!).spec);
  });

  it('leaves the CRDs out with crds.enabled=false, and drops the keep policy with crds.keep=false', () => {
    expect(ofKind(template({ 'crds.enabled': false }), 'CustomResourceDefinition')).toEqual([]);
    const unkept = ofKind(template({ 'crds.keep': false }), 'CustomResourceDefinition');
    expect(unkept).toHaveLength(9);
    for (const crd of unkept) expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
  });

  it('installs the admission policies as generated, with their bindings, unless admissionPolicies.enabled=false', () => {
    const manifests = template({});
    const policies = ofKind(manifests, 'ValidatingAdmissionPolicy') as Array<Manifest & { spec: unknown }>;
    const bindings = ofKind(manifests, 'ValidatingAdmissionPolicyBinding');
    const generated = admissionPolicies();
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      'slipway-bundle-references',
      'slipway-environment-references',
      'slipway-project-references',
      'slipway-statuspage-references',
      'slipway-webhook-references',
      'slipway-writers',
    ]);
    for (const policy of policies)
      expect(policy.spec).toEqual(
        generated.find((g) => g.policy.metadata.name === policy.metadata.name)!.policy.spec,
      );
    expect(bindings.map((b) => b.metadata.name).sort()).toEqual(policies.map((p) => p.metadata.name).sort());
    expect(policies[0]!.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    // The writers policy's parameter: the release's own ServiceAccounts, and those a value adds.
    const writers = (values: Record<string, string | boolean>) =>
      (ofKind(template(values), 'ConfigMap') as Array<Manifest & { data?: Record<string, string> }>)
        .filter((c) => c.metadata.name === 'slipway-writers')
        .map((c) => c.data?.users);
    expect(writers({})).toEqual([
      'system:serviceaccount:slipway-system:slipway-operator\nsystem:serviceaccount:slipway-system:slipway-gateway\n',
    ]);
    expect(writers({ 'admissionPolicies.writers[0]': 'ci:deployer' })[0]).toMatch(
      /slipway-gateway\nci:deployer\n$/,
    );
    const bound = bindings.find((b) => b.metadata.name === 'slipway-writers') as Manifest & {
      spec: { paramRef: { name: string; namespace: string } };
    };
    expect(bound.spec.paramRef).toMatchObject({ name: 'slipway-writers', namespace: 'slipway-system' });
    const off = template({ 'admissionPolicies.enabled': false });
    expect([
      ...ofKind(off, 'ValidatingAdmissionPolicy'),
      ...ofKind(off, 'ValidatingAdmissionPolicyBinding'),
    ]).toEqual([]);
    expect(writers({ 'admissionPolicies.enabled': false })).toEqual([]);
  });

  it('exposes the gateway and the status API through Ingresses and derives the public URLs', () => {
    const manifests = template({
      'gateway.ingress.enabled': true,
      'gateway.ingress.host': 'hooks.example.com',
      'gateway.ingress.className': 'nginx',
      'gateway.ingress.tls.enabled': true,
      'gateway.ingress.tls.secretName': 'hooks-tls',
      'statusApi.ingress.enabled': true,
      'statusApi.ingress.host': 'status.example.com',
    });
    const gateway = named(manifests, 'Ingress', componentName('gateway')) as Manifest & {
      spec: { ingressClassName: string; tls: unknown[]; rules: unknown[] };
    };
    expect(gateway.spec.ingressClassName).toBe('nginx');
    expect(gateway.spec.tls).toEqual([{ hosts: ['hooks.example.com'], secretName: 'hooks-tls' }]);
    expect(gateway.spec.rules).toEqual([
      {
        host: 'hooks.example.com',
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: componentName('gateway'), port: { name: 'http' } } },
            },
          ],
        },
      },
    ]);
    named(manifests, 'Ingress', componentName('status-api'));
    expect(envOf(manifests, 'gateway', 'SLIPWAY_PUBLIC_URL')).toBe('https://hooks.example.com');
    expect(envOf(manifests, 'operator', 'SLIPWAY_GATEWAY_BASE_URL')).toBe('https://hooks.example.com');
  });

  it("renders no Ingress, ServiceMonitor or NetworkPolicy of the processes by default (the builds' deny-all only)", () => {
    const manifests = template();
    for (const kind of ['Ingress', 'ServiceMonitor', 'PersistentVolumeClaim']) {
      expect(ofKind(manifests, kind)).toEqual([]);
    }
    expect(ofKind(manifests, 'NetworkPolicy').map((p) => p.metadata.name)).toEqual([
      'slipway-build-isolation',
    ]);
  });

  it('prefers an explicit publicUrl over the ingress host', () => {
    const manifests = template({
      'gateway.ingress.enabled': true,
      'gateway.ingress.host': 'hooks.internal',
      'gateway.publicUrl': 'https://hooks.example.com/',
    });
    expect(envOf(manifests, 'gateway', 'SLIPWAY_PUBLIC_URL')).toBe('https://hooks.example.com');
  });

  it('scrapes each component on its admin port with a ServiceMonitor', () => {
    const manifests = template({ 'serviceMonitor.enabled': true, 'serviceMonitor.labels.release': 'kps' });
    const monitors = ofKind(manifests, 'ServiceMonitor') as (Manifest & {
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; path: string }[];
      };
    })[];
    expect(monitors).toHaveLength(3);
    const services = ofKind(manifests, 'Service') as (Manifest & {
      spec: { selector: Record<string, string>; ports: { name: string; port: number }[] };
    })[];
    for (const monitor of monitors) {
      expect(monitor.metadata.labels?.release).toBe('kps');
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'admin', path: '/metrics' })]);
      // Exactly one Service matches, and it serves the admin port.
      const matching = services.filter((s) =>
        Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
      );
      expect(matching).toHaveLength(1);
      expect(matching[0]?.spec.ports).toEqual([expect.objectContaining({ name: 'admin', port: 8081 })]);
    }
  });

  it('limits traffic with a NetworkPolicy per component', () => {
    const manifests = template({
      'networkPolicy.enabled': true,
      'networkPolicy.apiServer.cidrs': '{10.96.0.1/32}',
    });
    type Policy = Manifest & {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: { ports: { port: string | number }[] }[];
        egress: { ports: { port: number; protocol: string }[]; to?: unknown[] }[];
      };
    };
    // (The builds' own, in the build namespace: build-networkpolicy.test.ts.)
    const policies = (ofKind(manifests, 'NetworkPolicy') as Policy[]).filter(
      (p) => p.metadata.name !== 'slipway-build-isolation',
    );
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(
      [componentName('gateway'), componentName('operator'), componentName('status-api')].sort(),
    );
    for (const policy of policies) {
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const ingressPorts = policy.spec.ingress.flatMap((rule) => rule.ports.map((p) => p.port));
      const component = policy.spec.podSelector.matchLabels['app.kubernetes.io/component'];
      // The operator has no public port; nobody but scrapers needs to reach it.
      expect(ingressPorts.sort()).toEqual(component === 'operator' ? ['admin'] : ['admin', 'http']);
      expect(policy.spec.egress).toContainEqual({
        ports: [
          { port: 443, protocol: 'TCP' },
          { port: 6443, protocol: 'TCP' },
        ],
        to: [{ ipBlock: { cidr: '10.96.0.1/32' } }],
      });
      // Only the operator talks to providers' APIs and notification receivers.
      const outbound = {
        ports: [
          { port: 443, protocol: 'TCP' },
          { port: 80, protocol: 'TCP' },
        ],
      };
      if (component === 'operator') expect(policy.spec.egress).toContainEqual(outbound);
      else expect(policy.spec.egress).not.toContainEqual(outbound);
    }
  });

  it('lets the operator trust a private certificate authority from a ConfigMap', () => {
    const pod = (set: Record<string, string>) =>
      (named(template(set), 'Deployment', componentName('operator')) as Deployment).spec.template.spec;
    expect(envOf(template(), 'operator', 'NODE_EXTRA_CA_CERTS')).toBeUndefined();
    expect(pod({}).volumes.map((v) => v.name)).not.toContain('trusted-ca');
    const set = {
      'operator.outbound.trustedCa.configMapName': 'corp-ca',
      'operator.outbound.trustedCa.key': 'root.pem',
    };
    expect(envOf(template(set), 'operator', 'NODE_EXTRA_CA_CERTS')).toBe('/etc/slipway/trusted-ca/root.pem');
    const spec = pod(set);
    expect(spec.volumes).toContainEqual({
      name: 'trusted-ca',
      configMap: { name: 'corp-ca', items: [{ key: 'root.pem', path: 'root.pem' }] },
    });
    expect(spec.containers[0]!.volumeMounts).toContainEqual({
      name: 'trusted-ca',
      mountPath: '/etc/slipway/trusted-ca',
      readOnly: true,
    });
  });

  it('keeps gateway archives on a PersistentVolumeClaim when asked', () => {
    const manifests = template({
      'gateway.archive.persistence.enabled': true,
      'gateway.archive.persistence.size': '50Gi',
    });
    const claim = named(
      manifests,
      'PersistentVolumeClaim',
      `${componentName('gateway')}-archives`,
    ) as Manifest & {
      spec: { accessModes: string[]; resources: { requests: { storage: string } } };
    };
    expect(claim.spec.resources.requests.storage).toBe('50Gi');
    const d = named(manifests, 'Deployment', componentName('gateway')) as Deployment;
    expect(d.spec.template.spec.volumes).toContainEqual({
      name: 'archives',
      persistentVolumeClaim: { claimName: claim.metadata.name },
    });
    // A ReadWriteOnce volume cannot be mounted by the old and the new pod during a rollout.
    expect(d.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('scales the gateway only on a shared archive volume', () => {
    const single = run(['template', RELEASE, CHART, ...setArgs({ 'gateway.replicas': 2 })]);
    expect(single.status).not.toBe(0);
    expect(single.stderr).toContain('gateway.replicas > 1 needs a shared archive volume');

    const shared = template({
      'gateway.replicas': 3,
      'gateway.archive.persistence.enabled': true,
      'gateway.archive.persistence.accessModes': '{ReadWriteMany}',
    });
    const d = named(shared, 'Deployment', componentName('gateway')) as Deployment;
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.strategy?.type).toBe('RollingUpdate');
    named(shared, 'PodDisruptionBudget', componentName('gateway'));
  });

  it('mounts an existing claim, with the rollout strategy its access modes allow', () => {
    const manifests = template({
      'gateway.archive.persistence.enabled': true,
      'gateway.archive.persistence.existingClaim': 'archives',
    });
    expect(ofKind(manifests, 'PersistentVolumeClaim')).toEqual([]);
    const d = named(manifests, 'Deployment', componentName('gateway')) as Deployment;
    expect(d.spec.template.spec.volumes).toContainEqual({
      name: 'archives',
      persistentVolumeClaim: { claimName: 'archives' },
    });
    expect(d.spec.strategy).toEqual({ type: 'Recreate' });
  });

  const s3Store = {
    'gateway.archiveStore.type': 's3',
    'gateway.archiveStore.s3.endpoint': 'https://s3.eu-west-1.amazonaws.com',
    'gateway.archiveStore.s3.bucket': 'archives',
    'gateway.archiveStore.s3.region': 'eu-west-1',
    'gateway.archiveStore.s3.prefix': 'slipway/',
    'gateway.archiveStore.s3.credentials.existingSecret': 's3-credentials',
  };

  it('keeps archives in an S3-compatible bucket: credentials from a Secret, replicas without a shared volume', () => {
    const manifests = template({
      ...s3Store,
      'gateway.replicas': 3,
      // Ignored with s3: the bucket keeps the archives, an emptyDir only stages uploads.
      'gateway.archive.persistence.enabled': true,
      'networkPolicy.enabled': true,
    });
    const d = named(manifests, 'Deployment', componentName('gateway')) as Deployment;
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.strategy?.type).toBe('RollingUpdate');
    expect(ofKind(manifests, 'PersistentVolumeClaim')).toEqual([]);
    expect(d.spec.template.spec.volumes.find((v) => v.name === 'archives')?.emptyDir).toBeDefined();
    const env = d.spec.template.spec.containers[0]!.env;
    expect(env.filter((e) => /^SLIPWAY_(S3_|ARCHIVE_STORE)/.test(e.name))).toEqual([
      { name: 'SLIPWAY_ARCHIVE_STORE', value: 's3' },
      { name: 'SLIPWAY_S3_ENDPOINT', value: 'https://s3.eu-west-1.amazonaws.com' },
      { name: 'SLIPWAY_S3_BUCKET', value: 'archives' },
      { name: 'SLIPWAY_S3_REGION', value: 'eu-west-1' },
      { name: 'SLIPWAY_S3_PREFIX', value: 'slipway/' },
      {
        name: 'SLIPWAY_S3_ACCESS_KEY_ID',
        valueFrom: { secretKeyRef: { name: 's3-credentials', key: 'accessKeyId' } },
      },
      {
        name: 'SLIPWAY_S3_SECRET_ACCESS_KEY',
        valueFrom: { secretKeyRef: { name: 's3-credentials', key: 'secretAccessKey' } },
      },
    ]);
    // Build Jobs keep downloading through the gateway: no S3 setting reaches the operator.
    const operator = named(manifests, 'Deployment', componentName('operator')) as Deployment;
    expect(
      operator.spec.template.spec.containers[0]!.env.filter((e) => e.name.startsWith('SLIPWAY_S3_')),
    ).toEqual([]);
    // Only the gateway may reach the object store's port.
    type Policy = Manifest & { spec: { egress: { ports: { port: number }[]; to?: unknown }[] } };
    const s3Rule = { ports: [{ port: 443, protocol: 'TCP' }] };
    const policy = (name: string) => named(manifests, 'NetworkPolicy', name) as Policy;
    expect(policy(componentName('gateway')).spec.egress).toContainEqual(s3Rule);
    expect(policy(componentName('operator')).spec.egress).not.toContainEqual(s3Rule);

    const minio = template({
      ...s3Store,
      'gateway.archiveStore.s3.endpoint': 'http://minio.minio.svc:9000',
      'networkPolicy.enabled': true,
    });
    expect((named(minio, 'NetworkPolicy', componentName('gateway')) as Policy).spec.egress).toContainEqual({
      ports: [{ port: 9000, protocol: 'TCP' }],
    });
  });

  it('without a credentials Secret, leaves S3 credentials to the AWS chain (IRSA on the ServiceAccount)', () => {
    const manifests = template({
      ...s3Store,
      'gateway.archiveStore.s3.credentials.existingSecret': '',
      'gateway.serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn':
        'arn:aws:iam::111122223333:role/slipway-archives',
    });
    const d = named(manifests, 'Deployment', componentName('gateway')) as Deployment;
    const names = d.spec.template.spec.containers[0]!.env.map((e) => e.name);
    expect(names).toContain('SLIPWAY_S3_BUCKET');
    expect(names.filter((n) => /KEY|TOKEN/.test(n) && n.startsWith('SLIPWAY_S3_'))).toEqual([]);
    const account = named(manifests, 'ServiceAccount', componentName('gateway')) as Manifest;
    expect(account.metadata.annotations?.['eks.amazonaws.com/role-arn']).toBe(
      'arn:aws:iam::111122223333:role/slipway-archives',
    );
    const withToken = template({
      ...s3Store,
      'gateway.archiveStore.s3.credentials.sessionTokenKey': 'sessionToken',
    });
    const env = (named(withToken, 'Deployment', componentName('gateway')) as Deployment).spec.template.spec
      .containers[0]!.env;
    expect(env.find((e) => e.name === 'SLIPWAY_S3_SESSION_TOKEN')).toEqual({
      name: 'SLIPWAY_S3_SESSION_TOKEN',
      valueFrom: { secretKeyRef: { name: 's3-credentials', key: 'sessionToken' } },
    });
  });

  it('refuses the s3 store without its endpoint or bucket', () => {
    for (const [missing, message] of [
      [
        'gateway.archiveStore.s3.endpoint',
        'gateway.archiveStore.type=s3 needs gateway.archiveStore.s3.endpoint',
      ],
      ['gateway.archiveStore.s3.bucket', 'gateway.archiveStore.type=s3 needs gateway.archiveStore.s3.bucket'],
    ] as const) {
      const result = run([
        'template',
        RELEASE,
        CHART,
        '--namespace',
        NAMESPACE,
        ...setArgs({ ...s3Store, [missing]: '' }),
      ]);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(message);
    }
    const tokenAlone = run([
      'template',
      RELEASE,
      CHART,
      ...setArgs({
        ...s3Store,
        'gateway.archiveStore.s3.credentials.existingSecret': '',
        'gateway.archiveStore.s3.credentials.sessionTokenKey': 'token',
      }),
    ]);
    expect(tokenAlone.status).not.toBe(0);
    expect(tokenAlone.stderr).toContain('sessionTokenKey needs credentials.existingSecret');
    const typo = run(['template', RELEASE, CHART, ...setArgs({ 'gateway.archiveStore.type': 'minio' })]);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain('archiveStore');
  });

  it("refuses to grant a component's permissions to the namespace's default account", () => {
    const result = run(['template', RELEASE, CHART, ...setArgs({ 'gateway.serviceAccount.create': false })]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('gateway: serviceAccount.name is required');
  });

  it.each([
    ['the longest release name (53 characters)', {}, 'r'.repeat(53)],
    ['the longest fullnameOverride (44 characters)', { fullnameOverride: 'a'.repeat(44) }, RELEASE],
  ] as [string, Record<string, string>, string][])(
    'keeps Service names and label values within 63 characters with %s',
    (_what, set, release) => {
      const manifests = template({ ...set, 'serviceMonitor.enabled': true }, release);
      const services = ofKind(manifests, 'Service').map((m) => m.metadata.name as string);
      expect(services.some((n) => n.endsWith('-status-api-metrics'))).toBe(true);
      expect(services.filter((n) => n.length > 63)).toEqual([]);
      const labelValues = manifests.flatMap((m) =>
        Object.values((m.metadata.labels ?? {}) as Record<string, string>),
      );
      expect(labelValues.filter((v) => v.length > 63)).toEqual([]);
    },
  );

  it('runs one operator per shard, each with its own selector and Lease, and the default for the rest', () => {
    const operators = (manifests: Manifest[]) =>
      (
        ofKind(manifests, 'Deployment') as Array<
          Deployment & {
            spec: { template: { spec: { containers: { command: string[]; args?: string[] }[] } } };
          }
        >
      )
        .filter((d) => d.metadata.name.startsWith(componentName('operator')))
        .map((d) => ({
          name: d.metadata.name,
          command: [
            ...d.spec.template.spec.containers[0]!.command,
            ...(d.spec.template.spec.containers[0]!.args ?? []),
          ],
          lease: d.spec.template.spec.containers[0]!.env.find((e) => e.name === 'SLIPWAY_LEASE_NAME')?.value,
        }));
    expect(operators(template())).toEqual([
      {
        name: componentName('operator'),
        command: ['node', 'operator/main.ts'],
        lease: componentName('operator'),
      },
    ]);
    const sharded = template({ 'sharding.shards': '{a,b}' });
    expect(operators(sharded)).toEqual([
      {
        name: componentName('operator'),
        command: ['node', 'operator/main.ts', '--watch-label-selector=!slipway.dev/shard'],
        lease: componentName('operator'),
      },
      ...['a', 'b'].map((shard) => ({
        name: `${componentName('operator')}-${shard}`,
        command: ['node', 'operator/main.ts', `--watch-label-selector=slipway.dev/shard in (${shard})`],
        lease: `${componentName('operator')}-${shard}`,
      })),
    ]);
    expect(ofKind(sharded, 'Lease').map((l) => l.metadata.name)).toEqual(
      operators(sharded).map((o) => o.lease),
    );
  });

  it('protects the replicated components with PodDisruptionBudgets', () => {
    const budgets = ofKind(template(), 'PodDisruptionBudget').map((m) => m.metadata.name);
    expect(budgets.sort()).toEqual([componentName('operator'), componentName('status-api')].sort());
  });

  it.each([
    [{ logLevel: 'loud' }, 'logLevel'],
    [{ 'operator.replicas': -1 }, 'replicas'],
    [{ 'image.pullPolicy': 'Sometimes' }, 'pullPolicy'],
    [{ 'gateway.publicUrl': 'hooks.example.com' }, 'publicUrl'],
    [{ 'statusApi.trustedProxies': '{not-a-cidr}' }, 'trustedProxies'],
    [{ 'gateway.ingress.enabled': true }, 'host'],
    [{ 'operator.replicaCount': 2 }, 'replicaCount'],
    [{ 'sharding.shards': '{Shard_A}' }, 'shards'],
    // The operator refuses more than 100 at start: refused here, not in a crash loop.
    [{ 'operator.buildConcurrency': 1000 }, 'buildConcurrency'],
    // The longest suffix (-status-api-metrics) must fit in 63 characters.
    [{ fullnameOverride: 'a'.repeat(45) }, 'fullnameOverride'],
  ] as [Record<string, string | number | boolean>, string][])(
    'values.schema.json rejects %j',
    (set, field) => {
      const result = run(['template', RELEASE, CHART, ...setArgs(set)]);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(field);
    },
  );

  it('prints the webhook base URL and the status URL after install', () => {
    const result = run([
      'install',
      RELEASE,
      CHART,
      '--namespace',
      NAMESPACE,
      '--dry-run=client',
      ...setArgs({
        'gateway.publicUrl': 'https://hooks.example.com',
        'statusApi.ingress.enabled': true,
        'statusApi.ingress.host': 'status.example.com',
        'statusApi.ingress.tls.enabled': true,
      }),
    ]);
    expect(result.status).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    expect(notes).toContain('https://hooks.example.com/upload.sh');
    expect(notes).toContain('https://status.example.com/api/v1/status');
  });
});
