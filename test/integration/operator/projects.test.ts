// Projects, environments and webhooks: the generated secret and published URLs, slug
// conflicts across namespaces, reference checks that recover on their own, and history pruning.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ProjectObject } from '../../../crds/index.ts';
import type { Operator } from '../../../operator/operator.ts';
import { mergePatch } from '../../../lib/kube.ts';
import { webhookUrl } from '../../../rules/webhook-url.ts';
import { environment, bundle, project, webhook, inNamespace, spec } from '../../support/builders.ts';
import { createNamespace, testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  GATEWAY,
  bundleInPhase,
  clients,
  eventsFor,
  get,
  jobsOf,
  readyReason,
  startOperator,
  webDeployment,
  waitForBuildJob,
} from './support.ts';

let kc: KubeConfig;
let a: { name: string; remove: () => Promise<void> };
let b: { name: string; remove: () => Promise<void> };
let operator: Operator;

const readyProject = (namespace: string, name: string) =>
  waitFor(`project ${namespace}/${name} Ready`, async () => {
    const p = await get.project(kc, namespace, name);
    return readyReason(p) === 'True/WebhookReady' ? p : undefined;
  });

beforeAll(async () => {
  kc = testKubeConfig();
  a = await createNamespace(kc, 'op-proj-a');
  b = await createNamespace(kc, 'op-proj-b');
  // Watching every namespace: slugs are unique across the cluster.
  operator = await startOperator(kc, a.name, { SLIPWAY_WATCH_NAMESPACE: '' });
});

afterAll(async () => {
  await operator?.stop();
  await a?.remove();
  await b?.remove();
});

describe('operator: projects', () => {
  it('generates an owned webhook Secret of at least 32 bytes and publishes the URLs from it', async () => {
    const { slipway, core } = clients(kc);
    const slug = `shop-${a.name}`;
    await slipway.create('Project', project('shop', inNamespace(a.name), spec({ slug })));
    const p = await readyProject(a.name, 'shop');
    expect(p.status?.webhook?.secretRef).toEqual({ name: 'shop-webhook', key: 'secret' });
    const secret = await core.readNamespacedSecret({ name: 'shop-webhook', namespace: a.name });
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Project',
      name: 'shop',
      uid: p.metadata.uid,
    });
    const value = Buffer.from(secret.data!.secret!, 'base64');
    expect(Buffer.from(value.toString(), 'base64url').length).toBeGreaterThanOrEqual(32);
    // Without its token: whoever may read the Project does not get a credential from it.
    expect(p.status?.webhook?.url).toBe(`${GATEWAY}/hooks/${slug}`);
    expect(webhookUrl(GATEWAY, slug, value).startsWith(`${p.status?.webhook?.url}/`)).toBe(true);
    expect(p.status?.uploadScriptUrl).toBe(`${GATEWAY}/upload.sh`);
    expect(p.status?.slug).toBe(slug);
  });

  it('uses a referenced Secret, and reports a missing one until it exists', async () => {
    const { slipway, core } = clients(kc);
    const slug = `ref-${a.name}`;
    await slipway.create(
      'Project',
      project(
        'ref',
        inNamespace(a.name),
        spec({ slug, webhookSecretRef: { name: 'my-hook', key: 'token' } }),
      ),
    );
    const missing = await waitFor('SecretNotFound', async () => {
      const p = await get.project(kc, a.name, 'ref');
      return readyReason(p) === 'False/SecretNotFound' ? p : undefined;
    });
    expect(missing.status?.webhook).toBeUndefined();
    await core.createNamespacedSecret({
      namespace: a.name,
      body: { metadata: { name: 'my-hook' }, stringData: { token: 's3cret-value' } },
    });
    // Referenced Secrets are not watched: a change of the project makes it look again.
    await slipway.patch('Project', a.name, 'ref', { metadata: { annotations: { touched: '1' } } });
    const p = await readyProject(a.name, 'ref');
    expect(p.status?.webhook).toEqual({
      url: `${GATEWAY}/hooks/${slug}`,
      secretRef: { name: 'my-hook', key: 'token' },
    });
  });

  it('says when the clone credentials Secret is missing, holds its git builds meanwhile, and builds once it exists', async () => {
    const { slipway, core } = clients(kc);
    await slipway.create(
      'Project',
      project(
        'private',
        inNamespace(a.name),
        spec({
          slug: `private-${a.name}`,
          repository: {
            url: 'https://git.example.com/private.git',
            credentialsSecretRef: { name: 'git-creds' },
          },
        }),
      ),
    );
    const missing = await waitFor('CredentialsSecretNotFound', async () => {
      const p = await get.project(kc, a.name, 'private');
      return readyReason(p) === 'False/CredentialsSecretNotFound' ? p : undefined;
    });
    expect(missing.status?.conditions?.find((c) => c.type === 'Ready')?.message).toMatch(
      /^Secret git-creds \(spec.repository.credentialsSecretRef\) does not exist/,
    );
    // Deliveries keep working meanwhile: the webhook URL is published.
    expect(missing.status?.webhook?.url).toBeDefined();
    await slipway.create(
      'Bundle',
      bundle('private-1', inNamespace(a.name), spec({ projectRef: { name: 'private' } })),
    );
    await waitFor('the bundle to wait for the credentials', async () => {
      const b1 = await get.bundle(kc, a.name, 'private-1');
      return readyReason(b1) === 'False/CredentialsSecretNotFound' ? b1 : undefined;
    });
    expect(await jobsOf(kc, a.name, 'private-1')).toEqual([]);
    await core.createNamespacedSecret({
      namespace: a.name,
      body: { metadata: { name: 'git-creds' }, stringData: { username: 'ci', password: 'token' } },
    });
    // Looked at again within 10 s, without any change to the project.
    await readyProject(a.name, 'private');
    await waitForBuildJob(kc, a.name, 'private-1');
  });

  it('an SSH key without known_hosts, or a password over http, stops git builds with the reason, without a Job', async () => {
    const { slipway, core } = clients(kc);
    await core.createNamespacedSecret({
      namespace: a.name,
      body: { metadata: { name: 'ssh-creds' }, stringData: { 'ssh-privatekey': 'KEY' } },
    });
    await core.createNamespacedSecret({
      namespace: a.name,
      body: { metadata: { name: 'token-creds' }, stringData: { username: 'ci', password: 'token' } },
    });
    const cases = [
      [
        'ssh',
        'git@git.example.com:shop.git',
        'ssh-creds',
        'KnownHostsMissing',
        /has an ssh-privatekey but no known_hosts/,
      ],
      [
        'plain',
        'http://git.example.com/shop.git',
        'token-creds',
        'InsecureRepository',
        /is not https:\/\/: the password in Secret token-creds is sent only over https/,
      ],
    ] as const;
    for (const [name, url, secret, reason, message] of cases) {
      await slipway.create(
        'Project',
        project(
          name,
          inNamespace(a.name),
          spec({ slug: `${name}-${a.name}`, repository: { url, credentialsSecretRef: { name: secret } } }),
        ),
      );
      const p = await waitFor(reason, async () => {
        const found = await get.project(kc, a.name, name);
        return readyReason(found) === `False/${reason}` ? found : undefined;
      });
      expect(p.status?.conditions?.find((c) => c.type === 'Ready')?.message).toMatch(message);
      // As with a missing Secret: git bundles made once the Project says why wait for it.
      await slipway.create(
        'Bundle',
        bundle(`${name}-1`, inNamespace(a.name), spec({ projectRef: { name } })),
      );
      await waitFor(`the bundle of ${name} to wait with ${reason}`, async () => {
        const b1 = await get.bundle(kc, a.name, `${name}-1`);
        return readyReason(b1) === `False/${reason}` ? b1 : undefined;
      });
      expect(await jobsOf(kc, a.name, `${name}-1`)).toEqual([]);
    }
    // With the host keys beside the key, the build goes ahead.
    await core.patchNamespacedSecret(
      {
        name: 'ssh-creds',
        namespace: a.name,
        body: { stringData: { known_hosts: 'git.example.com ssh-ed25519 AAAA' } },
      },
      mergePatch,
    );
    await readyProject(a.name, 'ssh');
    await waitForBuildJob(kc, a.name, 'ssh-1');
  });

  it('a later project with the same slug in another namespace gets SlugConflict and no URL, and recovers', async () => {
    const { slipway } = clients(kc);
    const slug = `dup-${a.name}`;
    await slipway.create('Project', project('first', inNamespace(a.name), spec({ slug })));
    await readyProject(a.name, 'first');
    await slipway.create('Project', project('second', inNamespace(b.name), spec({ slug })));
    const conflicted = await waitFor('SlugConflict', async () => {
      const p = await get.project(kc, b.name, 'second');
      return readyReason(p) === 'False/SlugConflict' ? p : undefined;
    });
    expect(conflicted.status?.webhook).toBeUndefined();
    expect(conflicted.status?.slug).toBeUndefined();
    await slipway.delete('Project', a.name, 'first');
    await readyProject(b.name, 'second');
  });

  it('an environment and a webhook without their objects are not Ready, and recover when they appear', async () => {
    const { slipway, apps } = clients(kc);
    await slipway.create(
      'Webhook',
      webhook(
        'late',
        inNamespace(a.name),
        spec({ projectRef: { name: 'late' }, environmentRef: { name: 'late-env' } }),
      ),
    );
    await slipway.create(
      'Environment',
      environment(
        'late-env',
        inNamespace(a.name),
        spec({ projectRef: { name: 'late' }, deploymentRef: { name: 'late-web' } }),
      ),
    );
    const reasonOf = (kind: 'Webhook' | 'Environment', name: string) => async () =>
      readyReason(await slipway.get<ProjectObject>(kind, a.name, name));
    await waitFor(
      'webhook ProjectNotFound',
      async () => (await reasonOf('Webhook', 'late')()) === 'False/ProjectNotFound',
    );
    await waitFor(
      'environment ProjectNotFound',
      async () => (await reasonOf('Environment', 'late-env')()) === 'False/ProjectNotFound',
    );

    await slipway.create('Project', project('late', inNamespace(a.name), spec({ slug: `late-${a.name}` })));
    await waitFor(
      'environment DeploymentNotFound',
      async () => (await reasonOf('Environment', 'late-env')()) === 'False/DeploymentNotFound',
    );
    await apps.createNamespacedDeployment({ namespace: a.name, body: webDeployment(a.name, 'late-web') });
    await waitFor(
      'environment Ready',
      async () => (await reasonOf('Environment', 'late-env')()) === 'True/Valid',
    );
    await waitFor('webhook Ready', async () => (await reasonOf('Webhook', 'late')()) === 'True/Valid');

    // Each move of Ready is an Event, and the status says which generation it describes.
    await waitFor('the environment Events', async () => {
      const reasons = await eventsFor(kc, a.name, 'late-env');
      return reasons.join() === 'ProjectNotFound,DeploymentNotFound,Valid' || undefined;
    }).catch(async (err: Error) => {
      throw new Error(`${err.message}; events: ${(await eventsFor(kc, a.name, 'late-env')).join()}`);
    });
    const env = await get.environment(kc, a.name, 'late-env');
    expect(env.status?.observedGeneration).toBe(env.metadata.generation);
  });

  it('keeps bundleHistoryLimit finished bundles, never the one an environment runs', async () => {
    const { slipway, apps } = clients(kc);
    await slipway.create(
      'Project',
      project(
        'hist',
        inNamespace(a.name),
        spec({
          slug: `hist-${a.name}`,
          bundleHistoryLimit: 2,
          repository: { url: 'https://git.example.com/h.git' },
        }),
      ),
    );
    await apps.createNamespacedDeployment({ namespace: a.name, body: webDeployment(a.name, 'hist-web') });
    await slipway.create(
      'Environment',
      environment(
        'hist-env',
        inNamespace(a.name),
        spec({ projectRef: { name: 'hist' }, deploymentRef: { name: 'hist-web' } }),
      ),
    );
    const histBundle = (name: string, deploy = false) =>
      bundle(
        name,
        inNamespace(a.name),
        spec({
          projectRef: { name: 'hist' },
          ...(deploy ? { deploy: { environmentRef: { name: 'hist-env' }, backupBeforeDeploy: false } } : {}),
        }),
      );
    await slipway.create('Bundle', histBundle('hist-deployed', true));
    await bundleInPhase(kc, a.name, 'hist-deployed', 'Ready');
    for (const name of ['hist-1', 'hist-2', 'hist-3']) {
      await slipway.create('Bundle', histBundle(name));
      await bundleInPhase(kc, a.name, name, 'Built');
    }
    const names = await waitFor('pruning', async () => {
      const list = await slipway.list<ProjectObject>('Bundle', a.name);
      const mine = list
        .filter((x) => x.metadata.name.startsWith('hist-'))
        .map((x) => x.metadata.name)
        .sort();
      return mine.length === 3 ? mine : undefined;
    });
    // hist-1 is the oldest beyond the limit of 2; hist-deployed is older still but the environment runs it.
    expect(names).toEqual(['hist-2', 'hist-3', 'hist-deployed']);
    // Its name is remembered, so a replayed delivery of it builds nothing (rules/pruned-bundles.ts).
    const hist = await get.project(kc, a.name, 'hist');
    expect(hist.status?.prunedBundles?.map((p) => p.name)).toEqual(['hist-1']);
  });
});
