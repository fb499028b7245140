// The inputs and summary of the bundle decision tests (decide.ts and the rooms it calls): one
// bundle's inputs with everything its decision reads, and what a kubectl reader sees change.
import type { BundleObject } from '../../../../crds/index.ts';
import type { BundleDecision, BundleInputs } from '../../../../operator/bundle/decision.ts';
import {
  NAMESPACE as NS,
  T0,
  bundle,
  deployTo,
  project,
  spec,
  status,
  stored,
  type Modifier,
} from '../../../support/builders.ts';
import { condition } from '../builders.ts';

export const NOW = new Date(T0.getTime() + 100_000);
/** An archive the gateway (at http://gw) stored for project shop of namespace NS. */
export const ARCHIVE_URL = `http://gw/archives/${NS}/shop/${'f'.repeat(64)}.tar.gz`;

export const DIGEST = `sha256:${'d'.repeat(64)}`;
export const B0_IMAGE = `registry.test/${NS}/shop:b0@${DIGEST}`;

export function inputs(overrides: Partial<BundleInputs> = {}): BundleInputs {
  const b = overrides.bundle ?? bundle('b1', stored());
  return {
    bundle: b,
    project: project(undefined, stored()),
    environment: undefined,
    deployment: undefined,
    buildJob: undefined,
    backupJob: undefined,
    projectBundles: [b],
    runningBuilds: 0,
    startedBuilds: new Set(),
    defaultBuildConcurrency: 1,
    maxBuildConcurrency: 10,
    namespaceRunningBuilds: 0,
    maxNamespaceBuilds: 5,
    image: `registry.test/${NS}/shop:${b.metadata.name}`,
    registry: 'registry.test',
    buildNamespace: 'slipway-builds',
    // What the live read finds once a build Job succeeded (the cache path has none: see below).
    pushedImage: `registry.test/${NS}/shop:${b.metadata.name}@${DIGEST}`,
    archiveBaseUrl: 'http://gw',
    backupLocation: `pvc://backups/shop/staging/${b.metadata.name}.sql`,
    now: NOW,
    ...overrides,
  };
}

/**
 * What a reader of `kubectl get/describe` would see change: "phase action outcome", and each
 * condition as Type=Status/Reason in the order of the bundle's status.
 */
export function summary(d: BundleDecision) {
  return {
    then: `${d.phase} ${d.action.type} ${d.outcome}`,
    conditions: d.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(' '),
  };
}

export type Case = { name: string; in: Partial<BundleInputs> } & ReturnType<typeof summary>;

export const built = (name: string, ...modifiers: Modifier<BundleObject>[]) =>
  bundle(
    name,
    stored(),
    status({
      phase: 'Built',
      image: `registry.test/${NS}/shop:${name}@${DIGEST}`,
      buildJob: `${name}-build`,
      conditions: [condition('Built', 'True', 'Succeeded')],
    }),
    ...modifiers,
  );

export const deployBundle = (name: string, created = 0, backup = false) =>
  built(name, stored(created), spec({ deploy: deployTo('staging', backup) }));
