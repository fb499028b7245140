// What a cluster admin checks first: every pod runs locked down, is probed on its admin port,
// starts the right entry point from the one image, and gets the configuration it reads.
import { DEFAULT_BACKUP_RESOURCES, DEFAULT_BUILD_RESOURCES, loadConfig } from '../../../operator/config.ts';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  HELM_BUILD_TIMEOUT_MS,
  componentName,
  helm,
  named,
  ofKind,
  template,
  type Manifest,
} from './helm.ts';

type Container = {
  name: string;
  image: string;
  command: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: unknown }[];
  securityContext: Record<string, unknown>;
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts: { name: string; mountPath: string }[];
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
};
type PodSpec = {
  serviceAccountName: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }[];
};
type Deployment = Manifest & { spec: { replicas: number; template: { spec: PodSpec } } };

const COMMANDS = {
  operator: ['node', 'operator/main.ts'],
  gateway: ['node', 'webhook-gateway/main.ts'],
  'status-api': ['node', 'status-api/main.ts'],
} as const;

function deployment(manifests: Manifest[], component: keyof typeof COMMANDS): Deployment {
  return named(manifests, 'Deployment', componentName(component)) as Deployment;
}

function container(d: Deployment): Container {
  const [only, ...rest] = d.spec.template.spec.containers;
  expect(rest).toHaveLength(0);
  if (!only) throw new Error(`${d.metadata.name} has no container`);
  return only;
}

function env(c: Container): Record<string, string | undefined> {
  return Object.fromEntries(c.env.map((e) => [e.name, e.value]));
}

/** The operator's environment as its pod gets it: with the archive URL key its Secret holds. */
function operatorEnv(m: Manifest[]): Record<string, string | undefined> {
  return { ...env(container(deployment(m, 'operator'))), SLIPWAY_ARCHIVE_URL_KEY: 'k'.repeat(64) };
}

function adminPort(c: Container): number {
  const port = c.ports.find((p) => p.name === 'admin');
  if (!port) throw new Error(`${c.name} has no admin port`);
  return port.containerPort;
}

describe('chart Deployments', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    helm();
    manifests = template({ 'image.repository': 'registry.example.com/slipway', 'image.tag': '1.2.3' });
  }, HELM_BUILD_TIMEOUT_MS);

  it('renders one Deployment per process, all from the same image with their own command', () => {
    expect(
      ofKind(manifests, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([componentName('gateway'), componentName('operator'), componentName('status-api')]);
    for (const component of Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]) {
      const c = container(deployment(manifests, component));
      expect(c.image).toBe('registry.example.com/slipway:1.2.3');
      expect(c.command).toEqual(COMMANDS[component]);
    }
  });

  it.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])(
    '%s runs as non-root with a read-only root filesystem, no privilege escalation, no capabilities',
    (component) => {
      const d = deployment(manifests, component);
      const pod = d.spec.template.spec;
      const c = container(d);
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      // A read-only root filesystem still needs a writable /tmp.
      expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(pod.serviceAccountName).toBe(componentName(component));
      expect(c.resources.requests).toBeDefined();
      expect(c.resources.limits?.memory).toBeDefined();
    },
  );

  it.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])(
    '%s is probed on its admin port 8081, which it is told to serve',
    (component) => {
      const c = container(deployment(manifests, component));
      expect(adminPort(c)).toBe(8081);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'admin' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'admin' });
      expect(env(c).SLIPWAY_ADMIN_PORT).toBe('8081');
    },
  );

  it('keeps the public processes serving 5 s into their shutdown (preStop), so a proxy in front stops sending first', () => {
    expect(container(deployment(manifests, 'gateway')).lifecycle?.preStop?.sleep?.seconds).toBe(5);
    expect(container(deployment(manifests, 'status-api')).lifecycle?.preStop?.sleep?.seconds).toBe(5);
    expect(container(deployment(manifests, 'operator')).lifecycle).toBeUndefined();
    const off = template({ 'gateway.shutdownDelaySeconds': 0 });
    expect(container(deployment(off, 'gateway')).lifecycle).toBeUndefined();
  });

  it("makes the operator's leader-election Lease, so helm uninstall removes it", () => {
    const lease = named(manifests, 'Lease', componentName('operator'));
    expect(lease.spec).toEqual({});
    const env = container(deployment(manifests, 'operator')).env.find((e) => e.name === 'SLIPWAY_LEASE_NAME');
    expect(env?.value).toBe(lease.metadata.name);
    expect(ofKind(template({ 'operator.leaderElection': false, 'operator.replicas': 1 }), 'Lease')).toEqual(
      [],
    );
  });

  it('runs two operator replicas with leader election and the downward-API pod identity', () => {
    const d = deployment(manifests, 'operator');
    expect(d.spec.replicas).toBe(2);
    const c = container(d);
    expect(env(c)).toMatchObject({
      SLIPWAY_LEADER_ELECTION: 'true',
      SLIPWAY_LEASE_NAME: componentName('operator'),
      SLIPWAY_BUILDER_IMAGE: 'moby/buildkit:rootless',
      SLIPWAY_BUILD_CONCURRENCY: '1',
      SLIPWAY_WATCH_NAMESPACE: '',
    });
    // Unset values leave the operator's own defaults in force.
    expect(Object.keys(env(c))).not.toContain('SLIPWAY_REGISTRY');
    expect(Object.keys(env(c))).not.toContain('SLIPWAY_BACKUP_IMAGE_MYSQL');
    const fieldPaths = Object.fromEntries(
      c.env.map((e) => [e.name, (e.valueFrom as { fieldRef?: { fieldPath: string } })?.fieldRef?.fieldPath]),
    );
    expect(fieldPaths.POD_NAME).toBe('metadata.name');
    expect(fieldPaths.POD_NAMESPACE).toBe('metadata.namespace');
  });

  it('tells the operator and the gateway the same public gateway URL', () => {
    const operatorUrl = env(container(deployment(manifests, 'operator'))).SLIPWAY_GATEWAY_BASE_URL;
    const gatewayUrl = env(container(deployment(manifests, 'gateway'))).SLIPWAY_PUBLIC_URL;
    expect(operatorUrl).toBe('http://slipway-gateway.slipway-system.svc');
    expect(gatewayUrl).toBe(operatorUrl);
  });

  it('gives the gateway an emptyDir archive volume, limits and the generated signing key', () => {
    const d = deployment(manifests, 'gateway');
    const c = container(d);
    const vars = env(c);
    expect(vars.SLIPWAY_MAX_UPLOAD_BYTES).toBe(String(512 * 1024 * 1024));
    expect(vars.SLIPWAY_PORT).toBe('8080');
    // Build Jobs fetch archives in-cluster, not through the public ingress.
    expect(vars.SLIPWAY_ARCHIVE_BASE_URL).toBe('http://slipway-gateway.slipway-system.svc');
    // The filesystem store by default: no S3 setting at all.
    expect(vars.SLIPWAY_ARCHIVE_STORE).toBe('filesystem');
    expect(Object.keys(vars).filter((name) => name.startsWith('SLIPWAY_S3_'))).toEqual([]);
    const archiveDir = vars.SLIPWAY_ARCHIVE_DIR;
    expect(c.volumeMounts).toContainEqual({ name: 'archives', mountPath: archiveDir });
    expect(d.spec.template.spec.volumes.find((v) => v.name === 'archives')?.emptyDir).toBeDefined();
    const keyRef = c.env.find((e) => e.name === 'SLIPWAY_ARCHIVE_URL_KEY')?.valueFrom as {
      secretKeyRef: { name: string; key: string };
    };
    const secret = named(manifests, 'Secret', keyRef.secretKeyRef.name) as Manifest & {
      data: Record<string, string>;
    };
    const key = Buffer.from(secret.data[keyRef.secretKeyRef.key] ?? '', 'base64');
    expect(key.length).toBeGreaterThanOrEqual(32);
    // The operator signs the download URLs the gateway verifies: same key.
    const operatorKey = container(deployment(manifests, 'operator')).env.find(
      (e) => e.name === 'SLIPWAY_ARCHIVE_URL_KEY',
    );
    expect(operatorKey?.valueFrom).toEqual(keyRef);
  });

  it('tells the operator where the gateway serves archives: the only archive URLs it signs', () => {
    const archiveBase = (m: Manifest[], process: 'operator' | 'gateway') =>
      env(container(deployment(m, process))).SLIPWAY_ARCHIVE_BASE_URL;
    expect(archiveBase(manifests, 'operator')).toBe('http://slipway-gateway.slipway-system.svc');
    expect(archiveBase(manifests, 'operator')).toBe(archiveBase(manifests, 'gateway'));
    const custom = template({ 'gateway.archiveBaseUrl': 'https://archives.example.com/' });
    expect(archiveBase(custom, 'operator')).toBe('https://archives.example.com');
    expect(archiveBase(custom, 'gateway')).toBe('https://archives.example.com');
  });

  it('uses existing signing-key Secrets instead of generating them', () => {
    const custom = template({
      'gateway.archiveUrlKey.existingSecret': 'my-key',
      'gateway.archiveUrlKey.existingSecretKey': 'signing',
      'gateway.registryTokens.existingSecret': 'my-token-key',
      'gateway.registryTokens.existingSecretKey': 'tls.key',
    });
    expect(ofKind(custom, 'Secret')).toEqual([]);
    const keyRef = (name: string) =>
      container(deployment(custom, 'gateway')).env.find((e) => e.name === name)?.valueFrom;
    expect(keyRef('SLIPWAY_ARCHIVE_URL_KEY')).toEqual({ secretKeyRef: { name: 'my-key', key: 'signing' } });
    expect(keyRef('SLIPWAY_REGISTRY_TOKEN_KEY')).toEqual({
      secretKeyRef: { name: 'my-token-key', key: 'tls.key' },
    });
  });

  it('issues registry tokens by default: the operator mints build credentials, the gateway signs with a key the chart keeps', () => {
    const secret = named(manifests, 'Secret', 'slipway-registry-token-key') as unknown as {
      data: Record<string, string>;
    };
    expect(Buffer.from(secret.data['key.pem']!, 'base64').toString()).toMatch(
      /^-----BEGIN EC PRIVATE KEY-----/,
    );
    expect(env(container(deployment(manifests, 'operator'))).SLIPWAY_REGISTRY_AUTH).toBe('tokens');
    expect(loadConfig(operatorEnv(manifests)).registryAuth).toBe('tokens');
    const custom = template({ 'gateway.registryTokens.publicRepositories': '{base/*,tools/git}' });
    expect(env(container(deployment(custom, 'gateway')))).toMatchObject({
      SLIPWAY_REGISTRY_TOKEN_SERVICE: 'slipway-registry',
      SLIPWAY_REGISTRY_TOKEN_ISSUER: 'slipway',
      SLIPWAY_REGISTRY_PUBLIC_REPOSITORIES: 'base/*,tools/git',
      SLIPWAY_REGISTRY_TOKEN_SECONDS: '600',
    });
    // A single-team install without credentials says so, and runs no token endpoint.
    const anonymous = template({ 'operator.registryAuth': 'anonymous' });
    expect(env(container(deployment(anonymous, 'operator'))).SLIPWAY_REGISTRY_AUTH).toBe('anonymous');
    expect(env(container(deployment(anonymous, 'gateway'))).SLIPWAY_REGISTRY_TOKEN_SERVICE).toBeUndefined();
    expect(ofKind(anonymous, 'Secret').map((s) => s.metadata.name)).toEqual(['slipway-archive-url-key']);
  });

  it('points the status API at the release namespace by default', () => {
    expect(env(container(deployment(manifests, 'status-api'))).SLIPWAY_STATUS_NAMESPACE).toBe(
      'slipway-system',
    );
  });

  it('passes the status API its namespace, trusted proxies and rate limit', () => {
    const custom = template({
      'statusApi.statusNamespace': 'status',
      'statusApi.trustedProxies': '{10.0.0.0/8,192.168.0.0/16}',
      'statusApi.rateLimitRps': 25,
    });
    expect(env(container(deployment(custom, 'status-api')))).toMatchObject({
      SLIPWAY_STATUS_NAMESPACE: 'status',
      SLIPWAY_TRUSTED_PROXIES: '10.0.0.0/8,192.168.0.0/16',
      SLIPWAY_RATE_LIMIT_RPS: '25',
      SLIPWAY_PORT: '8080',
    });
  });

  it("bounds build and backup pods by default, in a form the operator's configuration reads", () => {
    const config = loadConfig(operatorEnv(manifests));
    expect(config.buildResources).toEqual(DEFAULT_BUILD_RESOURCES);
    expect(config.backupResources).toEqual(DEFAULT_BACKUP_RESOURCES);
    expect(config.maxBuildConcurrency).toBe(10);
    const custom = loadConfig(operatorEnv(template({ 'operator.buildResources.limits.memory': '8Gi' })));
    expect(custom.buildResources.limits).toEqual({ ...DEFAULT_BUILD_RESOURCES.limits, memory: '8Gi' });
  });

  it('passes configured builder, registry and backup images to the operator', () => {
    const custom = template({
      'operator.builderImage': 'registry.example.com/buildkit:v0.20.0-rootless',
      'operator.registry': 'registry.example.com/apps',
      'operator.backupImages.mysql': 'mysql:8.4',
      'operator.backupImages.postgresql': 'postgres:17',
      'operator.buildConcurrency': 3,
      'operator.jobNodeSelector.pool': 'builds',
      'operator.jobNodeSelector.arch': 'amd64',
    });
    expect(env(container(deployment(custom, 'operator')))).toMatchObject({
      SLIPWAY_JOB_NODE_SELECTOR: 'arch=amd64,pool=builds',
      SLIPWAY_BUILDER_IMAGE: 'registry.example.com/buildkit:v0.20.0-rootless',
      SLIPWAY_REGISTRY: 'registry.example.com/apps',
      SLIPWAY_BACKUP_IMAGE_MYSQL: 'mysql:8.4',
      SLIPWAY_BACKUP_IMAGE_POSTGRESQL: 'postgres:17',
      SLIPWAY_BUILD_CONCURRENCY: '3',
    });
  });

  it('keeps build stores on the nodes only when a directory is given, with the size kept', () => {
    const defaults = operatorEnv(template({}));
    expect(defaults.SLIPWAY_BUILD_STORE).toBeUndefined();
    expect(loadConfig(defaults).buildStore).toBeUndefined();
    const withStore = operatorEnv(
      template({
        'operator.buildStore.hostPath': '/var/lib/slipway/builds',
        'operator.buildStore.keepMegabytes': 4096,
      }),
    );
    expect(withStore).toMatchObject({
      SLIPWAY_BUILD_STORE: '/var/lib/slipway/builds',
      SLIPWAY_BUILD_STORE_KEEP_MB: '4096',
    });
    expect(loadConfig(withStore)).toMatchObject({
      buildStore: '/var/lib/slipway/builds',
      buildStoreKeepMegabytes: 4096,
    });
  });
});
