// The product as users install it: Slipway's image, built here from the Dockerfile's recipe, and
// `helm install` of charts/slipway on the real node — operator and gateway at 2 replicas, the
// chart's ServiceAccounts and RBAC, archives in a real S3-compatible store, the gateway and the
// status API behind the node's ingress controller (Caddy), pods reaching Services through
// kube-proxy and cluster DNS. The test only drives the release, as a user would: deliveries go
// through the Ingress, and nothing runs with admin credentials on behalf of Slipway — a pull
// request's preview too, served at its own host by the node's ingress controller.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { applicationNamespace, backupDirectory } from './support/restricted.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { LABEL_BUNDLE, LABEL_STEP } from '../../crds/labels.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import type { BundleObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import { onHost, realNode, NODE_DIR } from '../../scripts/cluster/real-node.ts';
import {
  helmTest,
  installRelease,
  RELEASE_NAMESPACE,
  S3_SECRET,
  TRUSTED_CA_CONFIGMAP,
  uninstallRelease,
  type InstalledRelease,
} from '../../scripts/helm/install.ts';
import { buildSlipwayImage, type SlipwayImage } from '../../scripts/image/build.ts';
import { kubectl, testKubeConfig, testState, waitFor, kubectlApply } from '../support/cluster.ts';
import { githubPush, githubPushRequest } from '../support/github-push.ts';
import { startGitea, type Gitea } from '../support/gitea.ts';
import { track } from './support/leftovers.ts';
import { backupFile, finalBundle, run, servedPage, step } from './support/chain.ts';
import { startGitServer, startMariaDb, type Database, type GitServer } from './support/host-services.ts';
import { LOG_DIR } from './support/slipway.ts';
import {
  jsonLines,
  podLogs,
  readyPods,
  releaseNamespaceObjects,
  releaseRuns,
  scaleComponent,
  behindService,
} from './support/release-pods.ts';
import { previewsOnGitea } from './installed/previews.ts';
import { promotesWhatStagingRan } from './installed/promotion.ts';
import type { InstalledScene } from './installed/scene.ts';
import { subscriberHearsNoticeUpdate } from './installed/subscribers.ts';
import { runUploadScript } from './support/upload.ts';
import {
  backupVolume,
  databaseSecret,
  mainToStaging,
  siteEnvironment,
  siteProject,
  siteWebhook,
  webDeployment,
  siteManualBundle,
} from './support/site-objects.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const core = kc.makeApiClient(CoreV1Api);
const node = realNode();
const web = node.baseImages['static-web']!;
let ns: { name: string; remove: () => Promise<void> };
let git: GitServer;
let gitea: Gitea;
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
const scene = (): InstalledScene => ({ ns, node, git, gitea, mariadb, hookUrl, secret });
const releaseOptions = (of: SlipwayImage) => ({
  kubeconfig: testState().kubeconfig,
  kubectl: join(testState().binDir!, 'kubectl'),
  node,
  image: of,
  // The tier's CRDs are installed already (by kubectl, for every e2e file): the release leaves
  // them alone. (npm start -- --real-node --helm installs them with the chart.)
  crds: false,
  trustedCa: gitea.tls!.ca,
});

beforeAll(
  step(
    () => ns?.name ?? RELEASE_NAMESPACE,
    async () => {
      image = await buildSlipwayImage(node);
      // Gitea's API is reached over HTTPS, with a CA of its own that the release is told to trust.
      gitea = await startGitea({
        publicAddress: node.hostAddress,
        tls: true,
        started: (child, program) => track(child, program),
      });
      release = await installRelease(releaseOptions(image));
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
  await Promise.all([git?.stop(), mariadb?.stop(), gitea?.stop()]);
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

  it$(
    'installed from its OCI artifact in the registry; helm test fails naming the status API while it is gone, and passes',
    async () => {
      expect(release.chart.ref).toBe(`oci://${node.hostRegistry}/charts/slipway`);
      const manifest = JSON.parse(
        (
          await run(node.crane, [
            'manifest',
            '--insecure',
            `${node.hostRegistry}/charts/slipway:${release.chart.version}`,
          ])
        ).stdout,
      ) as { config: { mediaType: string } };
      expect(manifest.config.mediaType).toBe('application/vnd.cncf.helm.config.v1+json');

      await scaleComponent('status-api', release.deployments.statusApi, 0);
      const failed = await helmTest(testState().kubeconfig);
      expect(failed.code).not.toBe(0);
      expect(failed.output).toMatch(
        /^ok: the gateway answers GET http:\/\/slipway-gateway\.slipway-system\.svc\S*\/upload\.sh: 200, the upload script$/m,
      );
      // Connections refused, or answers that are not the status API's (whatever answers the
      // Service's address with no endpoints behind it), for 15 s.
      expect(failed.output).toMatch(
        /^FAIL: the status API does not answer GET http:\/\/slipway-status-api\.slipway-system\.svc\S*\/api\/v1\/components within 15 s/m,
      );
      await scaleComponent('status-api', release.deployments.statusApi, 2);
      await waitFor(
        'two status APIs again, behind their Service',
        async () => (await readyPods('status-api')).length === 2 && (await behindService('status-api')),
        120_000,
        250,
      );

      const passed = await helmTest(testState().kubeconfig);
      expect(passed).toEqual(expect.objectContaining({ code: 0 }));
      expect(passed.output).toMatch(/^Phase: +Succeeded$/m);
      expect(passed.output).toMatch(
        /^ok: the status API answers GET \S+\/api\/v1\/components: 200, 0 components$/m,
      );
      // Passed, the test Pod is deleted: nothing of it is left in the release namespace.
      expect((await releaseNamespaceObjects()).filter((o) => o.includes('test-services'))).toEqual([]);
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
      await scaleComponent('operator', release.deployments.operator, 0);
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
      await scaleComponent('operator', release.deployments.operator, 2);
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
      const next = { ...image, tag: `${image.tag}-next`, ref: `${image.repository}:${image.tag}-next` };
      await run(node.crane, ['copy', '--insecure', onHost(node, image.ref), onHost(node, next.ref)]);
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
        await installRelease(releaseOptions(next));
        await releaseRuns(next.ref, 6);
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
    async () => subscriberHearsNoticeUpdate(scene()),
  );

  it$(
    'a promotion to production waits on an open incident and an approval, then serves the same digest with no build; a rollback returns; stats counts it',
    async () => promotesWhatStagingRan(scene()),
  );

  it$(
    "pull requests on a real Gitea: previewed at their own host through the Ingress with the chart's rights, told on the pull request, removed on merge; a fork's is not built",
    async () => previewsOnGitea(scene()),
  );

  it$('helm uninstall leaves nothing behind but the CRDs', async () => {
    await uninstallRelease(testState().kubeconfig);
    uninstalled = true;
    // The release namespace as the user made it: the S3 Secret, the trusted CA's ConfigMap, the
    // writers ConfigMap that came with the admission policies (applied like the CRDs, not by the
    // release: crds false), and what Kubernetes puts in every namespace.
    const expected = [
      'configmap/kube-root-ca.crt',
      `configmap/${TRUSTED_CA_CONFIGMAP}`,
      'configmap/slipway-writers',
      `secret/${S3_SECRET}`,
      'serviceaccount/default',
    ];
    // The pods go after helm returns: their ReplicaSets' garbage collection deletes them.
    const left = await waitFor(
      'the release namespace to hold only what the user made',
      async () => {
        const now = await releaseNamespaceObjects();
        return now.join() === expected.join() ? now : undefined;
      },
      90_000,
      500,
    ).catch(async () => releaseNamespaceObjects());
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
    await core.deleteNamespacedConfigMap({ name: TRUSTED_CA_CONFIGMAP, namespace: RELEASE_NAMESPACE });
  });
});
