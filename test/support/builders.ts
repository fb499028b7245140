// Object builders for every tier and the benches (as cert-manager's test/unit/gen): one valid
// object per kind, with one set of defaults, changed by modifiers where a test needs something
// else — for example
//   bundle('b1', inNamespace(ns), spec({ deploy: deployTo('staging') }))   to apply with kubectl,
//   bundle('b1', stored(5), status(finished('Ready')))                       as an informer holds it.
import {
  API_VERSION,
  type BundleObject,
  type EnvironmentObject,
  type PreviewObject,
  type ProjectObject,
  type PromotionObject,
  type StatusComponentObject,
  type StatusNoticeObject,
  type StatusPageObject,
  type WebhookObject,
} from '../../crds/index.ts';

export const NAMESPACE = 'team';
export const PROJECT = 'shop';
/** The instant stored objects are created at (plus the seconds stored() is given). */
export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const at = (seconds: number): string => new Date(T0.getTime() + seconds * 1000).toISOString();

interface Named {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    creationTimestamp?: string;
  };
}
export type Modifier<T> = (object: T) => void;

/** In another namespace than NAMESPACE. */
export const inNamespace =
  (namespace: string): Modifier<Named> =>
  (o) => {
    o.metadata.namespace = namespace;
  };

/** Labels added to the object's own. */
export const labels =
  (values: Record<string, string>): Modifier<Named> =>
  (o) => {
    const metadata = o.metadata as { labels?: Record<string, string> };
    metadata.labels = { ...metadata.labels, ...values };
  };

/** As the API server returns it: a uid, generation 1, created `seconds` after T0. */
export const stored =
  (seconds = 0): Modifier<Named> =>
  (o) => {
    o.metadata.uid = `uid-${o.metadata.name}`;
    o.metadata.generation = 1;
    o.metadata.creationTimestamp = at(seconds);
  };

/** Spec fields set (replacing the default of each one named; `undefined` removes it). */
export const spec =
  (fields: Record<string, unknown>): Modifier<{ spec: object }> =>
  (o) => {
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) delete (o.spec as Record<string, unknown>)[key];
      else (o.spec as Record<string, unknown>)[key] = value;
    }
  };

/** A status (none by default). */
export const status =
  (value: object | undefined): Modifier<{ status?: unknown }> =>
  (o) => {
    if (value !== undefined) o.status = value;
  };

function build<T extends Named>(kind: string, name: string, defaults: object, modifiers: Modifier<T>[]): T {
  const object = {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: NAMESPACE },
    spec: structuredClone(defaults),
  } as unknown as T;
  for (const modify of modifiers) modify(object);
  return object;
}

export const project = (name = PROJECT, ...modifiers: Modifier<ProjectObject>[]): ProjectObject =>
  build(
    'Project',
    name,
    { bundleHistoryLimit: 20, repository: { url: 'https://git.example.com/shop.git' } },
    modifiers,
  );

export const environment = (
  name = 'staging',
  ...modifiers: Modifier<EnvironmentObject>[]
): EnvironmentObject =>
  build(
    'Environment',
    name,
    { projectRef: { name: PROJECT }, deploymentRef: { name: 'shop-web' } },
    modifiers,
  );

/** An Environment's database and backup volume, as spec fields. */
export const database = {
  database: { engine: 'mysql' as const, secretRef: { name: 'db' } },
  backupStorage: { persistentVolumeClaim: { claimName: 'backups' }, pathPrefix: 'shop' },
};

export const webhook = (name = 'main', ...modifiers: Modifier<WebhookObject>[]): WebhookObject =>
  build('Webhook', name, { projectRef: { name: PROJECT }, branch: 'main', matchMode: 'Exact' }, modifiers);

/** A manual bundle of a commit: what a person creates first for a project. */
export const bundle = (name = 'shop-manual-1', ...modifiers: Modifier<BundleObject>[]): BundleObject =>
  build(
    'Bundle',
    name,
    {
      projectRef: { name: PROJECT },
      source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
      comment: 'First manual build',
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: { type: 'Manual' },
    },
    modifiers,
  );

/** A rollback: a small object that rolls bundle `to` back out onto `environment`, with no build. */
export const rollbackBundle = (
  name: string,
  to: string,
  environment = 'staging',
  ...modifiers: Modifier<BundleObject>[]
): BundleObject =>
  build(
    'Bundle',
    name,
    {
      projectRef: { name: PROJECT },
      source: { bundleRef: { name: to } },
      trigger: { type: 'Rollback' },
      deploy: { environmentRef: { name: environment }, backupBeforeDeploy: false },
    },
    modifiers,
  );

/** The Preview of pull request 7, as the gateway makes it from a delivery. */
export const preview = (name = 'shop-pr-7', ...modifiers: Modifier<PreviewObject>[]): PreviewObject =>
  build(
    'Preview',
    name,
    {
      projectRef: { name: PROJECT },
      provider: 'github',
      number: 7,
      branch: 'feature',
      headCommit: 'a'.repeat(40),
      fork: false,
    },
    modifiers,
  );

/** A Promotion of what staging runs to production, asked for by alice, with no gates. */
export const promotion = (name = 'release-1', ...modifiers: Modifier<PromotionObject>[]): PromotionObject =>
  build(
    'Promotion',
    name,
    {
      projectRef: { name: PROJECT },
      from: { environmentRef: { name: 'staging' } },
      to: { environmentRef: { name: 'production' } },
      requestedBy: 'alice',
    },
    modifiers,
  );

/** spec.deploy of a bundle. */
export const deployTo = (environment = 'staging', backupBeforeDeploy = false) => ({
  environmentRef: { name: environment },
  backupBeforeDeploy,
});

export const statusPage = (name = 'status', ...modifiers: Modifier<StatusPageObject>[]): StatusPageObject =>
  build('StatusPage', name, { name: 'Example Status', url: 'https://status.example.com' }, modifiers);

export const statusComponent = (
  name: string,
  ...modifiers: Modifier<StatusComponentObject>[]
): StatusComponentObject =>
  build('StatusComponent', name, { name, description: `${name} service`, state: 'operational' }, modifiers);

export const statusNotice = (
  name: string,
  ...modifiers: Modifier<StatusNoticeObject>[]
): StatusNoticeObject =>
  build(
    'StatusNotice',
    name,
    {
      type: 'unplanned',
      subject: 'Elevated error rates',
      updates: [
        { state: 'investigating', content: 'We are looking into it.', at: '2026-01-02T03:04:05.000Z' },
      ],
    },
    modifiers,
  );
