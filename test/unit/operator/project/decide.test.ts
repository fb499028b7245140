import { describe, expect, it } from '@jest/globals';
import {
  bundlesToPrune,
  claimSlug,
  cloneProblem,
  protectedBundles,
} from '../../../../operator/project/decide.ts';
import { effectiveSlug } from '../../../../rules/webhook-url.ts';
import { generateSecretValue, webhookSecret } from '../../../../operator/project/secret.ts';
import type { BundleObject } from '../../../../crds/index.ts';
import {
  at,
  bundle,
  deployTo,
  environment,
  project,
  spec,
  status,
  stored,
  type Modifier,
} from '../../../support/builders.ts';
import { deployment, finished } from '../builders.ts';

const inNamespace = (p: ReturnType<typeof project>, namespace: string, uid: string) => ({
  ...p,
  metadata: { ...p.metadata, namespace, uid },
});

describe('slug ownership', () => {
  it('defaults the slug to the project name', () => {
    expect(effectiveSlug(project('shop', stored()))).toBe('shop');
    expect(effectiveSlug(project('shop', stored(), spec({ slug: 'web-shop' })))).toBe('web-shop');
  });

  it('the oldest project keeps the slug; a later one in another namespace gets SlugConflict', () => {
    const first = inNamespace(project('shop', stored(0), spec({})), 'team-a', 'u1');
    const later = inNamespace(project('shop', stored(60), spec({})), 'team-b', 'u2');
    const all = [first, later];
    expect(claimSlug(first, all)).toEqual({ owner: true, slug: 'shop' });
    expect(claimSlug(later, all)).toMatchObject({ owner: false, reason: 'SlugConflict' });
    expect((claimSlug(later, all) as { message: string }).message).toContain('team-a/shop');
  });

  it('the later one recovers once the owner is being deleted', () => {
    const first = inNamespace(project('shop', stored(0), spec({})), 'team-a', 'u1');
    first.metadata.deletionTimestamp = at(100);
    const later = inNamespace(project('shop', stored(60), spec({})), 'team-b', 'u2');
    expect(claimSlug(later, [first, later])).toEqual({ owner: true, slug: 'shop' });
  });

  it('breaks a same-second tie by namespace and name, the same way on every replica', () => {
    const a = inNamespace(project('shop', stored(0), spec({})), 'alpha', 'u1');
    const b = inNamespace(project('shop', stored(0), spec({})), 'beta', 'u2');
    expect(claimSlug(a, [a, b]).owner).toBe(true);
    expect(claimSlug(b, [a, b]).owner).toBe(false);
  });

  it('a name that is not a DNS label needs an explicit slug', () => {
    expect(claimSlug(project('shop.example', stored()), [])).toMatchObject({
      owner: false,
      reason: 'InvalidSlug',
    });
  });
});

describe('bundle history pruning', () => {
  const ready = (name: string, created: number, ...modifiers: Modifier<BundleObject>[]) =>
    bundle(name, stored(created), status(finished('Ready')), ...modifiers);

  it('keeps the newest finished bundles up to the limit and never touches unfinished ones', () => {
    const bundles = [ready('b1', 1), ready('b2', 2), ready('b3', 3), ready('b4', 4), bundle('b5', stored(5))];
    const prune = bundlesToPrune(bundles, 2, new Set());
    expect(prune.map((b) => b.metadata.name).sort()).toEqual(['b1', 'b2']);
  });

  it('never deletes a protected bundle, even beyond the limit', () => {
    const bundles = [ready('b1', 1), ready('b2', 2), ready('b3', 3)];
    const prune = bundlesToPrune(bundles, 1, new Set(['b1']));
    expect(prune.map((b) => b.metadata.name)).toEqual(['b2']);
  });

  it('protects what environments run or roll out, and the newest manual bundle', () => {
    const bundles = [
      ready('m1', 1),
      ready('m2', 2),
      ready('w1', 3, spec({ trigger: { type: 'Webhook' }, deploy: deployTo() })),
      ready('w2', 4, spec({ trigger: { type: 'Webhook' }, deploy: deployTo('production') })),
    ];
    const staging = environment('staging', stored(), spec({}), status({ currentBundle: 'w1' }));
    const production = environment('production', stored(), spec({ deploymentRef: { name: 'prod-web' } }));
    const keep = protectedBundles(bundles, [staging, production], (env) =>
      env.metadata.name === 'production' ? deployment({ bundle: 'w2' }) : undefined,
    );
    expect([...keep].sort()).toEqual(['m2', 'w1', 'w2']);
  });

  it('protects the bundle a rollback on its way reuses, until that rollback ends', () => {
    const old = ready('w0', 1, spec({ trigger: { type: 'Webhook' }, deploy: deployTo() }));
    const rollingBack = bundle(
      'rb',
      stored(5),
      spec({ deploy: deployTo(), source: { bundleRef: { name: 'w0' } }, trigger: { type: 'Rollback' } }),
    );
    expect(protectedBundles([old, rollingBack], [], () => undefined).has('w0')).toBe(true);
    const done = { ...rollingBack, status: finished('Ready') };
    expect(protectedBundles([old, done], [], () => undefined).has('w0')).toBe(false);
  });
});

describe('generated webhook secret', () => {
  it('has at least 32 bytes of entropy and differs every time', () => {
    const a = generateSecretValue();
    expect(Buffer.from(a, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(generateSecretValue()).not.toBe(a);
  });

  it('is owned by its project, so it goes when the project goes', () => {
    const s = webhookSecret(project('shop', stored()), 'value');
    expect(s.metadata?.name).toBe('shop-webhook');
    expect(s.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Project', name: 'shop', uid: 'uid-shop', controller: true }),
    ]);
    expect(s.stringData).toEqual({ secret: 'value' });
  });
});

describe('clone credentials', () => {
  const withRepository = (url: string) =>
    project('shop', stored(), spec({ repository: { url, credentialsSecretRef: { name: 'git' } } }));
  const b64 = (v: string) => Buffer.from(v).toString('base64');

  it('needs the Secret, host keys beside an SSH key, and https for a password', () => {
    expect(cloneProblem(withRepository('https://git.example.com/shop.git'), undefined)?.reason).toBe(
      'CredentialsSecretNotFound',
    );
    const sshOnly = { data: { 'ssh-privatekey': b64('KEY') } };
    expect(cloneProblem(withRepository('ssh://git@git.example.com/shop.git'), sshOnly)).toMatchObject({
      reason: 'KnownHostsMissing',
      message: expect.stringMatching(/Secret git has an ssh-privatekey but no known_hosts/),
    });
    const token = { data: { username: b64('ci'), password: b64('token') } };
    expect(cloneProblem(withRepository('http://ci:token@git.example.com/shop.git'), token)).toMatchObject({
      reason: 'InsecureRepository',
      message:
        'spec.repository.url http://git.example.com/shop.git is not https://: the password in Secret git is sent only over https',
    });
  });

  it('accepts an SSH key with known_hosts, a password over https, and no credentials at all', () => {
    const ssh = {
      data: { 'ssh-privatekey': b64('KEY'), known_hosts: b64('git.example.com ssh-ed25519 AAAA') },
    };
    expect(cloneProblem(withRepository('git@git.example.com:shop.git'), ssh)).toBeUndefined();
    const token = { data: { password: b64('token') } };
    expect(cloneProblem(withRepository('https://git.example.com/shop.git'), token)).toBeUndefined();
    expect(cloneProblem(project('shop', stored()), undefined)).toBeUndefined();
  });
});
