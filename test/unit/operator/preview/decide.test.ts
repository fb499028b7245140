// What a Preview needs next: each gate in the order a user meets them, then build, serve, watch.
import { describe, expect, it } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import type { BundleObject, PreviewObject } from '../../../../crds/index.ts';
import { decidePreview, type PreviewFacts } from '../../../../operator/preview/decide.ts';
import {
  bundle,
  environment,
  preview as previewOf,
  project,
  spec,
  status,
} from '../../../support/builders.ts';

const HEAD = 'a'.repeat(40);
const preview = (extra: Partial<PreviewObject['spec']> = {}): PreviewObject =>
  previewOf('shop-pr-7', spec({ headCommit: HEAD, ...extra }));
const deployment: V1Deployment = {
  metadata: { name: 'shop-web' },
  spec: { selector: {}, template: { spec: { containers: [{ name: 'web', image: 'x' }] } } },
};
const previews = {
  environmentRef: { name: 'staging' },
  host: 'pr-{number}.example.com',
  trigger: 'Label' as const,
  label: 'preview',
  forks: 'Deny' as const,
  maxPreviews: 10,
  idleHours: 120,
};
const IMAGE = 'r/team/shop:b@sha256:' + 'e'.repeat(64);
const built = bundle('shop-0123456789ab', status({ phase: 'Built', image: IMAGE })) as BundleObject;

function facts(extra: Partial<PreviewFacts> = {}): PreviewFacts {
  return {
    preview: preview(),
    project: project('shop', spec({ previews })),
    environment: environment('staging'),
    deployment,
    manual: bundle(),
    bundle: undefined,
    copy: undefined,
    hasSlot: true,
    holdersOf: () => [],
    now: new Date('2026-11-28T10:00:00Z'),
    ...extra,
  };
}
const outcome = (f: PreviewFacts) => {
  const d = decidePreview(f);
  return `${d.phase}/${d.ready.reason}/${d.next.step}`;
};

describe('what a preview needs next', () => {
  it('waits, saying why, for what it copies', () => {
    expect(outcome(facts({ project: undefined }))).toBe('Waiting/ProjectNotFound/wait');
    expect(outcome(facts({ environment: undefined }))).toBe('Waiting/EnvironmentNotFound/wait');
    expect(outcome(facts({ deployment: undefined }))).toBe('Waiting/DeploymentNotFound/wait');
    expect(outcome(facts({ manual: undefined }))).toBe('Waiting/MissingBuildSettings/wait');
  });

  it('takes down what serves it when it may not be served: no slot left, a fork under Deny, its host taken', () => {
    expect(outcome(facts({ hasSlot: false }))).toBe('Waiting/MaxPreviewsReached/withdraw');
    expect(outcome(facts({ preview: preview({ fork: true }) }))).toBe('Waiting/ForkNotAllowed/withdraw');
  });

  it('leaves a host to the older preview that has it; the older one keeps serving', () => {
    const at = (name: string, created: string, uid: string) => {
      const p = previewOf(name, spec({ headCommit: HEAD }));
      p.metadata = { ...p.metadata, creationTimestamp: created, uid };
      return p;
    };
    const mine = at('shop-pr-7', '2026-11-28T09:00:00Z', 'u7');
    const older = at('shop-pr-3', '2026-11-28T08:00:00Z', 'u3');
    const newer = at('shop-pr-9', '2026-11-28T09:30:00Z', 'u9');
    const sameHost = project('shop', spec({ previews: { ...previews, host: '{branch}.example.com' } }));
    const f = (holders: PreviewObject[]) =>
      facts({ preview: mine, project: sameHost, bundle: built, holdersOf: () => [mine, ...holders] });
    const taken = decidePreview(f([older]));
    expect(`${taken.phase}/${taken.ready.reason}/${taken.next.step}`).toBe('Waiting/HostTaken/withdraw');
    expect(taken.ready.message).toContain('the URL of Preview shop-pr-3 already');
    expect(outcome(f([newer]))).toBe('Building/Progressing/serve');
    // A holder on its way out holds nothing; a fork under Deny says so before any host.
    const leaving = { ...older, metadata: { ...older.metadata, deletionTimestamp: '2026-11-28T09:59:00Z' } };
    expect(outcome(f([leaving]))).toBe('Building/Progressing/serve');
    const fork = { ...mine, spec: { ...mine.spec, fork: true } };
    expect(outcome({ ...f([older]), preview: fork })).toBe('Waiting/ForkNotAllowed/withdraw');
    // Another namespace's older preview at the host holds it too, and is not named.
    const elsewhere = { ...older, metadata: { ...older.metadata, namespace: 'another-team' } };
    const across = decidePreview(f([elsewhere]));
    expect(`${across.phase}/${across.ready.reason}`).toBe('Waiting/HostTaken');
    expect(across.ready.message).toContain('the URL of a preview of another namespace already');
    expect(across.ready.message).not.toContain('shop-pr-3');
  });

  it('is removed once its project no longer previews', () => {
    expect(outcome(facts({ project: project('shop') }))).toBe('Removing/PreviewsNotEnabled/remove');
  });

  it('a fork: nothing with Deny; with Approve, only the approved head commit, and a push drops the approval', () => {
    const fork = (approvedCommit?: string) =>
      preview({ fork: true, ...(approvedCommit ? { approvedCommit } : {}) });
    expect(outcome(facts({ preview: fork() }))).toBe('Waiting/ForkNotAllowed/withdraw');
    const approving = project('shop', spec({ previews: { ...previews, forks: 'Approve' } }));
    expect(outcome(facts({ preview: fork(), project: approving }))).toBe('Waiting/WaitingForApproval/wait');
    expect(outcome(facts({ preview: fork('b'.repeat(40)), project: approving }))).toBe(
      'Waiting/WaitingForApproval/wait',
    );
    expect(outcome(facts({ preview: fork(HEAD), project: approving }))).toBe('Building/Building/build');
  });

  it('builds the head commit, serves the built image, then watches the copy until it is available', () => {
    expect(outcome(facts())).toBe('Building/Building/build');
    const decision = decidePreview(facts({ bundle: built }));
    expect(decision.next).toMatchObject({
      step: 'serve',
      host: 'pr-7.example.com',
      image: IMAGE,
      container: 'web',
    });
    const copy = (available: number): V1Deployment => ({
      metadata: { name: 'shop-web-pr-7', generation: 2 },
      spec: { selector: {}, template: { spec: { containers: [{ name: 'web', image: IMAGE }] } } },
      status: { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: available },
    });
    expect(outcome(facts({ bundle: built, copy: copy(0) }))).toBe('Building/Progressing/watch');
    expect(outcome(facts({ bundle: built, copy: copy(1) }))).toBe('Ready/Served/watch');
  });

  it('fails with the build, or when the copy passes its progress deadline', () => {
    const failed = bundle(
      'shop-0123456789ab',
      status({
        phase: 'Failed',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'BuildFailed',
            message: 'npm ci failed',
            lastTransitionTime: '2026-11-28T10:00:00Z',
          },
        ],
      }),
    ) as BundleObject;
    const decision = decidePreview(facts({ bundle: failed }));
    expect(decision.ready).toMatchObject({
      reason: 'BuildFailed',
      message: 'Bundle shop-0123456789ab: npm ci failed',
    });
    const stuck: V1Deployment = {
      metadata: { name: 'shop-web-pr-7' },
      spec: { selector: {}, template: { spec: { containers: [{ name: 'web', image: IMAGE }] } } },
      status: {
        conditions: [
          { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' },
        ],
      },
    };
    expect(outcome(facts({ bundle: built, copy: stuck }))).toBe('Failed/RolloutFailed/watch');
  });
});
