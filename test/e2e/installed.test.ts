// The product as users install it: Slipway's image, built here from the Dockerfile's recipe, and
// `helm install` of charts/slipway on the real node — operator and gateway at 2 replicas, the
// chart's ServiceAccounts and RBAC, archives in a real S3-compatible store, the gateway and the
// status API behind the node's ingress controller (Caddy), pods reaching Services through
// kube-proxy and cluster DNS. The test only drives the release, as a user would: deliveries go
// through the Ingress, and nothing runs with admin credentials on behalf of Slipway — a pull
// request's preview too, served at its own host by the node's ingress controller.
import { createHmac } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { applicationNamespace, backupDirectory } from './support/restricted.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { LABEL_BUNDLE, LABEL_STEP } from '../../crds/labels.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import type { BundleObject, StatusPageObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import { realNode, NODE_DIR } from '../../scripts/cluster/real-node.ts';
import {
  installRelease,
  RELEASE_NAMESPACE,
  S3_SECRET,
  uninstallRelease,
  type InstalledRelease,
} from '../../scripts/helm/install.ts';
import { buildSlipwayImage, type SlipwayImage } from '../../scripts/image/build.ts';
import {
  kubectl,
  kubectlPatch,
  testKubeConfig,
  testState,
  waitFor,
  kubectlApply,
} from '../support/cluster.ts';
import { inNamespace, spec, statusComponent, statusPage } from '../support/builders.ts';
import { githubPullRequest, githubPush, githubPushRequest } from '../support/github-push.ts';
import { runPlugin } from '../support/plugin.ts';
import { startReceiver } from '../support/receiver.ts';
import { backupFile, finalBundle, run, servedPage, step } from './support/chain.ts';
import { startGitServer, startMariaDb, type Database, type GitServer } from './support/host-services.ts';
import { LOG_DIR } from './support/slipway.ts';
import { jsonLines, podLogs, readyPods } from './support/release-pods.ts';
import { previewGone, throughIngress } from './support/ingress.ts';
import { runUploadScript } from './support/upload.ts';
import {
  backupVolume,
  databaseSecret,
  mainToStaging,
  siteEnvironment,
  siteProject,
  siteWebhook,
  webDeployment,
  webService,
  siteManualBundle,
} from './support/site-objects.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const core = kc.makeApiClient(CoreV1Api);
const node = realNode();
const web = node.baseImages['static-web']!;
let ns: { name: string; remove: () => Promise<void> };
let git: GitServer;
let mariadb: Database;
let release: InstalledRelease;
let image: SlipwayImage;
let hookUrl: string;
let secret: string;
let uninstalled = false;
const backups = backupDirectory('slipway-installed-backups-');
const it$ = (name: string, fn: () => Promise<void>, timeout?: number) =>
  it(
    name,
    step(() => ns.name, fn),
    timeout,
  );
const apply = (...objects: unknown[]) => kubectlApply(objects, '-n', ns.name);

/** kubectl scale of the release's operator Deployment. */
async function scaleOperators(replicas: number) {
  await kubectl([
    'scale',
    'deployment',
    '-n',
    RELEASE_NAMESPACE,
    release.deployments.operator,
    `--replicas=${replicas}`,
  ]);
}

beforeAll(
  step(
    () => ns?.name ?? RELEASE_NAMESPACE,
    async () => {
      const state = testState();
      image = await buildSlipwayImage(node);
      release = await installRelease({
        kubeconfig: state.kubeconfig,
        kubectl: join(state.binDir!, 'kubectl'),
        node,
        image,
        // The tier's CRDs are installed already (by kubectl, for every e2e file): the release
        // leaves them alone. (npm start -- --real-node --helm installs them with the chart.)
        crds: false,
      });
      ns = await applicationNamespace(kc, 'installed');
      [git, mariadb] = await Promise.all([
        startGitServer(node.hostAddress, LOG_DIR),
        startMariaDb(node.hostAddress, LOG_DIR),
      ]);
      const backupStorage = backupVolume(ns.name, backups);
      await kubectlApply([backupStorage.volume]);
      await apply(
        backupStorage.claim,
        webDeployment('site-staging', web, 60),
        databaseSecret('db-staging', mariadb),
        siteProject(ns.name, git.url),
        siteEnvironment('staging', 'mysql'),
        mainToStaging,
      );
      ({ url: hookUrl, secret } = await siteWebhook(ns.name));
    },
  ),
  20 * 60_000,
);

afterAll(async () => {
  if (!uninstalled) await uninstallRelease(testState().kubeconfig).catch(() => undefined);
  await Promise.all([git?.stop(), mariadb?.stop()]);
  await ns?.remove();
  await kubectl(['delete', 'pv', `${ns?.name}-backups`, '--ignore-not-found']).catch(() => undefined);
  rmSync(backups, { recursive: true, force: true });
});

describe('Slipway installed with its Helm chart on the real node', () => {
  let v1: string;

  it$(
    'runs two operators (one leads), two gateways and two status APIs from the image, as uid 10001 on a read-only root',
    async () => {
      for (const [component, count] of [
        ['operator', 2],
        ['gateway', 2],
        ['status-api', 2],
      ] as const) {
        const pods = await readyPods(component);
        expect(pods).toHaveLength(count);
        for (const pod of pods) {
          const container = pod.spec!.containers[0]!;
          expect(container.image).toBe(release.image);
          expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
          const { stdout } = await kubectl([
            'exec',
            '-n',
            RELEASE_NAMESPACE,
            pod.metadata!.name!,
            '--',
            'node',
            '-p',
            "process.getuid() + ' ' + (() => { try { require('fs').writeFileSync('/app/x', ''); return 'wrote'; } catch (e) { return e.code; } })()",
          ]);
          expect(stdout.trim()).toBe('10001 EROFS');
        }
      }
      const lease = await kc
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: release.deployments.operator, namespace: RELEASE_NAMESPACE });
      const operators = (await readyPods('operator')).map((p) => p.metadata!.name);
      expect(operators).toContain(lease.spec?.holderIdentity);
    },
  );

  it$('the operator may do only what the chart grants it', async () => {
    const can = async (...args: string[]) =>
      (
        await kubectl([
          'auth',
          'can-i',
          ...args,
          `--as=system:serviceaccount:${RELEASE_NAMESPACE}:${release.deployments.operator}`,
        ]).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }))
      ).stdout.trim();
    expect(await can('create', 'jobs', '-n', ns.name)).toBe('yes');
    expect(await can('create', 'clusterrolebindings')).toBe('no');
    expect(await can('*', '*')).toBe('no');
    expect(await can('delete', 'namespaces')).toBe('no');
  });

  it$('a signed push through the Ingress is built, backed up and serves the pushed page', async () => {
    expect(hookUrl.startsWith(`${release.gatewayUrl}/hooks/`)).toBe(true);
    v1 = await git.commit({ 'web/index.html': '<h1>Installed v1</h1>\n' }, 'First version');
    // The first build needs a manual bundle's base software: it comes from kubectl, as a user's.
    await apply(siteManualBundle('site-manual-1', { commit: v1 }, web.image));
    // A manual bundle without a deploy ends Built.
    const manual = await waitFor(
      'the manual bundle to be built',
      async () => {
        const phase = (await api.get<BundleObject>('Bundle', ns.name, 'site-manual-1')).status?.phase;
        return phase === 'Built' || phase === 'Failed' ? phase : undefined;
      },
      300_000,
      500,
    );
    expect(manual).toBe('Built');
    const res = await githubPush(hookUrl, secret, { branch: 'main', commit: v1, message: 'First version' });
    expect(res.status).toBe(201);
    const name = res.body.bundles![0]!.name;
    const bundle = await finalBundle(kc, ns.name, name);
    expect(bundle.status?.phase).toBe('Ready');
    expect(await servedPage(kc, ns.name, 'site-staging', web.port, name)).toBe('200 <h1>Installed v1</h1>\n');
    expect(await mariadb.restoreRows(backupFile(bundle, backups))).toEqual(['one', 'two']);
    // The delivery went through the ingress controller (Caddy's access log) to a gateway pod.
    const proxied = jsonLines(readFileSync(join(NODE_DIR, 'logs', 'caddy.log'), 'utf8')).filter(
      (l) => l.request?.method === 'POST' && l.request?.uri === new URL(hookUrl).pathname,
    );
    expect(proxied.map((l) => l.status)).toContain(201);
    const answered = [...(await podLogs('gateway')).values()].flatMap((log) =>
      jsonLines(log).filter((l) => l.slug === `site-${ns.name}` && l.method === 'POST' && l.status === 201),
    );
    expect(answered.length).toBeGreaterThan(0);
  });

  it$(
    'the leading operator deleted during a build: the other takes over, one build Job, the bundle Ready',
    async () => {
      const leases = kc.makeApiClient(CoordinationV1Api);
      const batch = kc.makeApiClient(BatchV1Api);
      const v2 = await git.commit({ 'web/index.html': '<h1>Installed v2</h1>\n' }, 'Second version');
      const res = await githubPush(hookUrl, secret, {
        branch: 'main',
        commit: v2,
        message: 'Second version',
      });
      expect(res.status).toBe(201);
      const name = res.body.bundles![0]!.name;
      // Builds run in the release's build namespace, apart from the bundle's (docs/adr/0004).
      const jobsOf = async (step: string) =>
        (
          await batch.listNamespacedJob({
            namespace: step === 'build' ? DEFAULT_BUILD_NAMESPACE : ns.name,
            labelSelector: `${LABEL_BUNDLE}=${name},${LABEL_STEP}=${step}`,
          })
        ).items;
      await waitFor("the bundle's build Job", async () => (await jobsOf('build')).length > 0, 60_000, 100);
      // (builds here take several seconds: the leader goes while this one runs)
      expect((await jobsOf('build'))[0]!.status?.completionTime).toBeUndefined();
      const lease = () =>
        leases.readNamespacedLease({ name: release.deployments.operator, namespace: RELEASE_NAMESPACE });
      const leader = (await lease()).spec!.holderIdentity!;
      const deleted = Date.now();
      await core.deleteNamespacedPod({ name: leader, namespace: RELEASE_NAMESPACE });
      const successor = await waitFor(
        'another operator to take the lease',
        async () => {
          const holder = (await lease()).spec?.holderIdentity;
          return holder && holder !== leader ? holder : undefined;
        },
        60_000,
        100,
      );
      process.stderr.write(
        `[installed] ${successor} took over from ${leader} ${Date.now() - deleted} ms after the delete\n`,
      );
      const bundle = await finalBundle(kc, ns.name, name);
      expect(bundle.status?.phase).toBe('Ready');
      expect(await jobsOf('build')).toHaveLength(1);
      expect(await jobsOf('backup')).toHaveLength(1);
      expect(await servedPage(kc, ns.name, 'site-staging', web.port, name)).toBe(
        '200 <h1>Installed v2</h1>\n',
      );
      await waitFor(
        'two operators again',
        async () => (await readyPods('operator')).length === 2,
        120_000,
        250,
      );
    },
  );

  it$(
    'an upload stored by one gateway replica is built from the other, and upload.sh sees it through',
    async () => {
      // No operator while the archive changes hands: the build can only start once the replica
      // that stored it is gone.
      await scaleOperators(0);
      await waitFor(
        'the operators to stop',
        async () =>
          (await readyPods('operator')).length === 0 &&
          (
            await core.listNamespacedPod({
              namespace: RELEASE_NAMESPACE,
              labelSelector: 'app.kubernetes.io/component=operator',
            })
          ).items.length === 0,
        60_000,
        250,
      );
      const before = new Set((await api.list<BundleObject>('Bundle', ns.name)).map((b) => b.metadata.name));
      const upload = runUploadScript(
        release.gatewayUrl,
        `site-${ns.name}`,
        secret,
        '<h1>Installed v3, uploaded</h1>\n',
      );
      const created = await waitFor(
        'the upload to create a bundle',
        async () =>
          (await api.list<BundleObject>('Bundle', ns.name)).find((b) => !before.has(b.metadata.name)),
        60_000,
        250,
      );
      const sha256 = created.spec.source.archive!.sha256;
      const storedBy = [...(await podLogs('gateway'))].find(([, log]) => log.includes(sha256))?.[0];
      expect(storedBy).toBeDefined();
      await kubectl(['delete', 'pod', '-n', RELEASE_NAMESPACE, storedBy!]);
      await waitFor(
        'two gateways again',
        async () => (await readyPods('gateway')).length === 2,
        120_000,
        250,
      );
      await scaleOperators(2);
      const { stdout } = await upload;
      expect(stdout).toMatch(new RegExp(`^bundle ${created.metadata.name}: Ready`, 'm'));
      expect(await servedPage(kc, ns.name, 'site-staging', web.port, created.metadata.name)).toBe(
        '200 <h1>Installed v3, uploaded</h1>\n',
      );
      const servedBy = [...(await podLogs('gateway'))].filter(
        ([, log]) => log.includes(`${sha256}.tar.gz`) && log.includes('"archive":{"key"'),
      );
      // The replica that stored the archive was gone before any build started: the download was
      // answered by another one, from the bucket.
      expect(servedBy.length).toBeGreaterThan(0);
    },
  );

  it$(
    'helm upgrade to a new image while deliveries arrive: none is lost or refused without a retry',
    async () => {
      const state = testState();
      const next = { ...image, tag: `${image.tag}-next`, ref: `${image.repository}:${image.tag}-next` };
      await run(node.crane, ['copy', '--insecure', image.ref, next.ref]);
      const answers = new Map<string, number>();
      const count = (what: string) => answers.set(what, (answers.get(what) ?? 0) + 1);
      let sending = true;
      const sender = (async () => {
        while (sending) {
          // A branch no webhook matches: verified and answered, no build.
          const res = await fetch(
            hookUrl,
            githubPushRequest(secret, { branch: 'upgrade/probe', commit: v1, message: 'probe' }),
          ).then(
            (r) => `${r.status}${r.status >= 500 && r.headers.get('retry-after') ? ' with Retry-After' : ''}`,
            (err: Error) => `${err.message}: ${String((err.cause as Error | undefined)?.message ?? '')}`,
          );
          count(res);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      try {
        await installRelease({
          kubeconfig: state.kubeconfig,
          kubectl: join(state.binDir!, 'kubectl'),
          node,
          image: next,
          crds: false,
        });
        await waitFor(
          'every pod of the release to run the new image, none terminating',
          async () => {
            const pods = (
              await core.listNamespacedPod({
                namespace: RELEASE_NAMESPACE,
                labelSelector: 'app.kubernetes.io/instance=slipway',
              })
            ).items;
            return (
              pods.length === 6 &&
              pods.every((p) => !p.metadata?.deletionTimestamp && p.spec!.containers[0]!.image === next.ref)
            );
          },
          180_000,
          500,
        );
      } finally {
        sending = false;
        await sender;
      }
      process.stderr.write(
        `[installed] deliveries during the upgrade: ${JSON.stringify(Object.fromEntries(answers))}\n`,
      );
      const unexpected = [...answers].filter(
        ([answer]) => answer !== '202' && !answer.endsWith('with Retry-After'),
      );
      expect(unexpected).toEqual([]);
      expect(answers.get('202') ?? 0).toBeGreaterThan(20);
    },
  );

  it$(
    'a status page subscriber hears of `kubectl slipway notice update` from the installed operator, signed',
    async () => {
      const receiver = await startReceiver(node.hostAddress);
      try {
        await kubectlApply([
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'status-ops', namespace: ns.name },
            stringData: { url: `${receiver.base}/status/ops-token`, hmacKey: 'installed-status-key' },
          },
          statusPage(
            'status',
            inNamespace(ns.name),
            spec({ webhooks: [{ name: 'ops', secretRef: { name: 'status-ops' } }] }),
          ),
          statusComponent('databases', inNamespace(ns.name)),
        ]);
        await waitFor(
          'the webhook on the StatusPage',
          async () =>
            (await api.get<StatusPageObject>('StatusPage', ns.name, 'status')).status?.webhooks?.[0]?.since,
          60_000,
          250,
        );
        const opened = await runPlugin(
          ns.name,
          'notice',
          'open',
          '--type',
          'unplanned',
          '--subject',
          'Slow queries',
          '--component',
          'databases',
          '--message',
          'Looking into it.',
        );
        expect(opened.code).toBe(0);
        const notice = opened.stdout.trim();
        await waitFor(
          'the incident at the receiver',
          async () => receiver.to('/status/ops-token')[0],
          60_000,
          250,
        );
        const sentAt = Date.now();
        const updated = await runPlugin(
          ns.name,
          'notice',
          'update',
          notice,
          '--state',
          'identified',
          '--message',
          'A slow disk.',
        );
        expect(updated.code).toBe(0);
        const update = await waitFor(
          'the update at the receiver',
          async () => receiver.to('/status/ops-token').find((d) => d.body.incident?.status === 'identified'),
          60_000,
          100,
        );
        process.stderr.write(
          `[installed] kubectl slipway notice update started → subscriber webhook received: ${update.at - sentAt} ms\n`,
        );
        expect(update.headers['x-signature']).toBe(
          `sha256=${createHmac('sha256', 'installed-status-key').update(update.raw).digest('hex')}`,
        );
        expect(update.body).toMatchObject({
          page: { id: 'status', status_indicator: 'minor' },
          incident: {
            name: 'Slow queries',
            incident_updates: [{ status: 'identified', body: 'A slow disk.' }, { status: 'investigating' }],
            components: [{ name: 'databases' }],
          },
        });
      } finally {
        receiver.close();
      }
    },
  );

  it$(
    "a pull request with the label is previewed at its own host through the Ingress, with the chart's rights; closing it removes the preview",
    async () => {
      await apply(webService('site-staging', web.port));
      await kubectlPatch('project', 'site', ns.name, {
        spec: { previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.site.installed.test' } },
      });
      const head = await git.commit(
        { 'web/index.html': '<h1>Installed preview</h1>\n' },
        'A preview',
        'feature',
      );
      const host = 'pr-7.site.installed.test';
      const opened = Date.now();
      const pr = { number: 7, branch: 'feature', commit: head, labels: ['preview'] };
      const res = await githubPullRequest(hookUrl, secret, { ...pr, action: 'opened' });
      expect(res).toMatchObject({ status: 201, body: { result: 'created', preview: { name: 'site-pr-7' } } });
      await waitFor(
        `${host} to serve the pull request's page`,
        async () =>
          (await throughIngress(node.ingress.port, host).catch(() => '')) ===
            '200 <h1>Installed preview</h1>\n' || undefined,
        300_000,
        1_000,
      );
      console.log(
        `installed: pull request opened to preview served: ${((Date.now() - opened) / 1000).toFixed(1)} s`,
      );
      // Staging is untouched.
      expect(await servedPage(kc, ns.name, 'site-staging', web.port)).not.toContain('Installed preview');
      const closed = await githubPullRequest(hookUrl, secret, { ...pr, action: 'closed', merged: true });
      expect(closed).toMatchObject({ status: 200, body: { result: 'removed' } });
      await previewGone(ns.name, 7, node.ingress.port, host);
    },
  );

  it$('helm uninstall leaves nothing behind but the CRDs', async () => {
    await uninstallRelease(testState().kubeconfig);
    uninstalled = true;
    // The release namespace as the user made it: the S3 Secret, the writers ConfigMap that came
    // with the admission policies (applied like the CRDs, not by the release: crds false), and
    // what Kubernetes puts in every namespace.
    const expected = [
      'configmap/kube-root-ca.crt',
      'configmap/slipway-writers',
      `secret/${S3_SECRET}`,
      'serviceaccount/default',
    ];
    const inNamespace = async () =>
      (
        await kubectl([
          'get',
          'all,ingresses,secrets,configmaps,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets,networkpolicies,persistentvolumeclaims',
          '-n',
          RELEASE_NAMESPACE,
          '-o',
          'name',
        ])
      ).stdout
        .trim()
        .split('\n')
        .sort();
    // The pods go after helm returns: their ReplicaSets' garbage collection deletes them.
    const left = await waitFor(
      'the release namespace to hold only what the user made',
      async () => {
        const now = await inNamespace();
        return now.join() === expected.join() ? now : undefined;
      },
      90_000,
      500,
    ).catch(async () => inNamespace());
    expect(left).toEqual(expected);
    const cluster = await kubectl([
      'get',
      'clusterroles,clusterrolebindings,ingressclasses',
      '-l',
      'app.kubernetes.io/instance=slipway',
      '-o',
      'name',
    ]);
    expect(cluster.stdout.trim()).toBe('');
    const crds = await kubectl(['get', 'crds', '-o', 'name']);
    expect(crds.stdout).toContain('bundles.slipway.dev');
    expect((await api.list<BundleObject>('Bundle', ns.name)).length).toBeGreaterThan(0);
    await core.deleteNamespacedSecret({ name: S3_SECRET, namespace: RELEASE_NAMESPACE });
  });
});
