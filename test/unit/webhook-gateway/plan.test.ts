import { describe, expect, it } from '@jest/globals';
import { bundleSpec, type BundleObject } from '../../../crds/index.ts';
import { labelValue } from '../../../crds/labels.ts';
import {
  bundleName,
  otherBuild,
  planBundles,
  type BuildTrigger,
  type PlanInput,
} from '../../../webhook-gateway/plan.ts';
import { NAMESPACE, PROJECT, bundle, webhook, spec } from '../../support/builders.ts';

const COMMIT = 'fd489864e7642b48eaad6e3f155c10e46810ec72';
const project = { namespace: NAMESPACE, name: PROJECT };

function push(branch: string, commit = COMMIT, deliveryId = 'delivery-1'): BuildTrigger {
  return {
    type: 'Webhook',
    provider: 'github',
    deliveryId,
    changes: [{ branch, commit, comment: 'Fix the header' }],
  };
}

function upload(branch: string, sha256 = 'c'.repeat(64), commit = 'abc1234'): BuildTrigger {
  return {
    type: 'Upload',
    branch,
    commit,
    comment: 'Built by CI',
    archive: {
      url: `https://hooks.example.com/archives/${NAMESPACE}/${PROJECT}/${sha256}.tar.gz`,
      sha256,
      sizeBytes: 1234,
    },
  };
}

function plan(trigger: BuildTrigger, overrides: Partial<PlanInput> = {}) {
  return planBundles({
    project,
    webhooks: [
      webhook(
        'production',
        spec({
          branch: 'main',
          matchMode: 'Exact',
          environmentRef: { name: 'prod' },
          backupBeforeDeploy: true,
        }),
      ),
      webhook(
        'previews',
        spec({ branch: 'feature/', matchMode: 'StartsWith', environmentRef: { name: 'preview' } }),
      ),
      webhook('all-main', spec({ branch: 'main', matchMode: 'Contains' })),
    ],
    latestManualBundle: bundle(),
    trigger,
    ...overrides,
  });
}

function created(result: ReturnType<typeof planBundles>): BundleObject[] {
  if (result.outcome !== 'create') throw new Error(`expected bundles, got ${JSON.stringify(result)}`);
  return result.bundles.map((b) => b.bundle);
}

describe('planBundles for a push', () => {
  it('creates one bundle per matching webhook, with deploy copied from the webhook', () => {
    const result = plan(push('main'));
    expect(result.outcome).toBe('create');
    if (result.outcome !== 'create') return;
    expect(result.bundles.map((b) => [b.webhook, b.environment])).toEqual([
      ['all-main', null],
      ['production', 'prod'],
    ]);
    const [allMain, production] = result.bundles.map((b) => b.bundle);
    expect(production!.spec).toEqual({
      projectRef: { name: PROJECT },
      source: { git: { commit: COMMIT, branch: 'main' } },
      comment: 'Fix the header',
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: {
        type: 'Webhook',
        provider: 'github',
        webhookRef: { name: 'production' },
        deliveryId: 'delivery-1',
      },
      deploy: { environmentRef: { name: 'prod' }, backupBeforeDeploy: true },
    });
    expect(allMain!.spec.deploy).toBeUndefined();
    expect(production!.metadata).toEqual({
      name: production!.metadata.name,
      namespace: NAMESPACE,
      labels: {
        'slipway.dev/project': PROJECT,
        'slipway.dev/webhook': 'production',
        'slipway.dev/trigger': 'Webhook',
      },
    });
    expect(production!.apiVersion).toBe('slipway.dev/v1alpha1');
    expect(production!.kind).toBe('Bundle');
  });

  it('produces specs the Bundle schema accepts', () => {
    for (const bundle of [...created(plan(push('main'))), ...created(plan(upload('main')))]) {
      expect(bundleSpec.safeParse(bundle.spec).success).toBe(true);
    }
  });

  it('copies base software and directory map without sharing them with the manual bundle', () => {
    const manual = bundle();
    const [made] = created(plan(push('feature/login'), { latestManualBundle: manual }));
    expect(made!.spec.directoryMap).toEqual(manual.spec.directoryMap);
    expect(made!.spec.directoryMap).not.toBe(manual.spec.directoryMap);
  });

  it('copies the build steps unchanged, for pushes and uploads alike', () => {
    const manual = bundle();
    manual.spec.buildSteps = {
      image: 'composer:2',
      commands: ['composer install --no-dev', 'php craft up'],
      env: { APP_ENV: 'production' },
    };
    for (const trigger of [push('main'), upload('main')]) {
      for (const bundle of created(plan(trigger, { latestManualBundle: manual }))) {
        expect(bundle.spec.buildSteps).toEqual(manual.spec.buildSteps);
        expect(bundle.spec.buildSteps).not.toBe(manual.spec.buildSteps);
        expect(bundleSpec.safeParse(bundle.spec).success).toBe(true);
      }
    }
    expect(created(plan(push('main')))[0]!.spec).not.toHaveProperty('buildSteps');
  });

  it('backupBeforeDeploy defaults to false', () => {
    const [bundle] = created(plan(push('feature/login')));
    expect(bundle!.spec.deploy).toEqual({ environmentRef: { name: 'preview' }, backupBeforeDeploy: false });
  });

  it('is ignored, naming the branch, when no webhook matches', () => {
    expect(plan(push('develop'))).toEqual({
      outcome: 'ignored',
      reason: `no webhook of project ${PROJECT} matches branch develop`,
    });
  });

  it('is ignored rather than unprocessable when nothing matches and there is no manual bundle', () => {
    expect(plan(push('develop'), { latestManualBundle: undefined }).outcome).toBe('ignored');
  });

  it('is unprocessable, saying why, when a webhook matches but there is no manual bundle yet', () => {
    const result = plan(push('main'), { latestManualBundle: undefined });
    expect(result).toMatchObject({ outcome: 'unprocessable', code: 'no_manual_bundle' });
    expect(result.outcome === 'unprocessable' && result.message).toMatch(/no manual bundle yet/);
  });

  it('names bundles deterministically: a redelivery of the same commit maps to the same names', () => {
    const first = created(plan(push('main', COMMIT, 'delivery-1'))).map((b) => b.metadata.name);
    const again = created(plan(push('main', COMMIT, 'delivery-2'))).map((b) => b.metadata.name);
    expect(again).toEqual(first);
    const other = created(plan(push('main', 'e'.repeat(40)))).map((b) => b.metadata.name);
    expect(other.some((name) => first.includes(name))).toBe(false);
    expect(new Set(first).size).toBe(first.length);
  });

  it('tells a redelivery (the same build) from another bundle under the same name (otherBuild)', () => {
    const [first] = created(plan(push('main', COMMIT, 'delivery-1')));
    const [again] = created(plan(push('main', COMMIT, 'delivery-2')));
    expect(otherBuild(first!, again!)).toBeUndefined();
    const squatter = structuredClone(first!);
    squatter.spec.trigger = { type: 'Rollback' };
    squatter.spec.source = { git: { commit: 'c'.repeat(40) } };
    expect(otherBuild(squatter, again!)).toBe(
      `Bundle ${first!.metadata.name} already exists in namespace ${NAMESPACE} for another build ` +
        `(trigger Rollback, webhook (none), commit ${'c'.repeat(40)}; this delivery: trigger Webhook, webhook all-main, commit ${COMMIT})`,
    );
  });

  it('builds every matching branch of a push with several changes, once per commit and webhook', () => {
    const trigger: BuildTrigger = {
      type: 'Webhook',
      provider: 'bitbucket',
      deliveryId: undefined,
      changes: [
        { branch: 'feature/a', commit: '1'.repeat(40), comment: 'a' },
        { branch: 'feature/b', commit: '2'.repeat(40), comment: 'b' },
        { branch: 'feature/c', commit: '1'.repeat(40), comment: 'same commit as a' },
        { branch: 'develop', commit: '3'.repeat(40), comment: 'no webhook' },
      ],
    };
    const bundles = created(plan(trigger));
    expect(bundles.map((b) => b.spec.source.git)).toEqual([
      { commit: '1'.repeat(40), branch: 'feature/a' },
      { commit: '2'.repeat(40), branch: 'feature/b' },
    ]);
    expect(bundles[0]!.spec.trigger).toEqual({
      type: 'Webhook',
      provider: 'bitbucket',
      webhookRef: { name: 'previews' },
    });
  });

  it('only uses webhooks of this project that are not being deleted', () => {
    const deleting = webhook('leaving', spec({ branch: 'develop' }));
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const result = plan(push('develop'), {
      webhooks: [
        webhook('elsewhere', spec({ branch: 'develop', matchMode: 'Exact', projectRef: { name: 'blog' } })),
        deleting,
      ],
    });
    expect(result.outcome).toBe('ignored');
  });

  it('labels bundles of a project with a 70-character name the way the operator selects them', () => {
    const longName = `shop-${'x'.repeat(65)}`;
    const [bundle] = created(
      plan(push('feature/x'), {
        project: { ...project, name: longName },
        webhooks: [
          webhook(
            'features',
            spec({ branch: 'feature/', matchMode: 'StartsWith', projectRef: { name: longName } }),
          ),
        ],
      }),
    );
    const value = bundle!.metadata.labels!['slipway.dev/project']!;
    expect(value.length).toBeLessThanOrEqual(63);
    expect(value).toBe(labelValue(longName));
    expect(bundle!.spec.projectRef.name).toBe(longName);
  });

  it('makes the project the owner when its uid is known', () => {
    const [bundle] = created(plan(push('feature/x'), { project: { ...project, uid: 'uid-1' } }));
    expect(bundle!.metadata.ownerReferences).toEqual([
      { apiVersion: 'slipway.dev/v1alpha1', kind: 'Project', name: PROJECT, uid: 'uid-1' },
    ]);
  });
});

describe('planBundles for an upload', () => {
  it('builds once without a deployment when no webhook matches', () => {
    const result = plan(upload('develop'));
    expect(result.outcome).toBe('create');
    if (result.outcome !== 'create') return;
    expect(result.bundles).toHaveLength(1);
    const [planned] = result.bundles;
    expect(planned!.webhook).toBeNull();
    expect(planned!.environment).toBeNull();
    expect(planned!.bundle.spec).toMatchObject({
      source: {
        archive: {
          url: `https://hooks.example.com/archives/${NAMESPACE}/${PROJECT}/${'c'.repeat(64)}.tar.gz`,
          sha256: 'c'.repeat(64),
          sizeBytes: 1234,
          commit: 'abc1234',
          branch: 'develop',
        },
      },
      comment: 'Built by CI',
      trigger: { type: 'Upload' },
    });
    expect(planned!.bundle.spec.deploy).toBeUndefined();
    expect(planned!.bundle.metadata.labels).toEqual({
      'slipway.dev/project': PROJECT,
      'slipway.dev/trigger': 'Upload',
    });
  });

  it('builds once per matching webhook, deploying as each says', () => {
    const bundles = created(plan(upload('main')));
    expect(bundles.map((b) => [b.spec.trigger, b.spec.deploy])).toEqual([
      [{ type: 'Upload', webhookRef: { name: 'all-main' } }, undefined],
      [
        { type: 'Upload', webhookRef: { name: 'production' } },
        { environmentRef: { name: 'prod' }, backupBeforeDeploy: true },
      ],
    ]);
  });

  it('a retried upload of the same archive is the same bundle; a new archive of the same commit is not', () => {
    const first = created(plan(upload('develop'))).map((b) => b.metadata.name);
    expect(created(plan(upload('develop'))).map((b) => b.metadata.name)).toEqual(first);
    expect(created(plan(upload('develop', 'd'.repeat(64)))).map((b) => b.metadata.name)).not.toEqual(first);
  });

  it('is unprocessable without a manual bundle even when no webhook matches', () => {
    expect(plan(upload('develop'), { latestManualBundle: undefined })).toMatchObject({
      outcome: 'unprocessable',
      code: 'no_manual_bundle',
    });
  });
});

describe('bundleName', () => {
  it('is a DNS label of at most 63 characters for any project name', () => {
    for (const name of ['shop', 'a'.repeat(253), 'web.shop.example', '-x-']) {
      const result = bundleName(name, 'seed');
      expect(result.length).toBeLessThanOrEqual(63);
      expect(result).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(bundleName('shop', 'seed')).toMatch(/^shop-[0-9a-f]{12}$/);
    expect(bundleName('shop', 'seed')).toBe(bundleName('shop', 'seed'));
  });
});
