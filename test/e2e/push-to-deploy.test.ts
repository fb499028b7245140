// End to end on the real node, with no simulated step: a real git repository, the gateway and
// the operator as their own processes, build Jobs that clone and build with rootless BuildKit
// and push to the node's registry, backup Jobs that dump a real MariaDB and a real PostgreSQL,
// Deployments whose real pods serve the pushed page. The steps run in order: each failure must
// leave the last good version serving.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applicationNamespace, backupDirectory, tenantRole } from './support/restricted.ts';
import { PROBE_SCRIPT, reachableFromHost } from './support/network-probe.ts';
import {
  buildCredential,
  REGISTRY_PROBE_SCRIPT,
  registryDigest,
  registryProbeLines,
} from './support/registry-probe.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import { operatorEnvFor, realNode } from '../../scripts/cluster/real-node.ts';
import { kubectl, testKubeConfig, testState, waitFor, kubectlApply } from '../support/cluster.ts';
import { githubPush } from '../support/github-push.ts';
import { backupFile, finalBundle, readyCondition, run, servedPage, step } from './support/chain.ts';
import {
  startGitServer,
  startMariaDb,
  startPostgres,
  type Database,
  type GitServer,
} from './support/host-services.ts';
import { LOG_DIR, startSlipway, type Slipway } from './support/slipway.ts';
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

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const kc = testKubeConfig();
const api = slipwayApi(kc);
const node = realNode();
const web = node.baseImages['static-web']!;
let ns: { name: string; remove: () => Promise<void> };
let git: GitServer;
let mariadb: Database;
let postgres: Database;
let slipway: Slipway;
let hookUrl: string;
let secret: string;
const backups = backupDirectory('slipway-e2e-backups-');
/** A namespace user: reads bundles and pods (with logs) of this namespace, nothing elsewhere. */
const TENANT = 'e2e-tenant';
const it$ = (name: string, fn: () => Promise<void>) =>
  it(
    name,
    step(() => ns.name, fn),
  );

const apply = (...objects: unknown[]) => kubectlApply(objects, '-n', ns.name);

const deployment = (name: string) => webDeployment(name, web);

const environment = siteEnvironment;

const manualBundle = (name: string, commit: string, base: string, environmentName: string) =>
  siteManualBundle(name, { commit }, base, {
    comment: `manual build of ${commit.slice(0, 7)}`,
    deploy: { environmentRef: { name: environmentName }, backupBeforeDeploy: true },
  });

async function push(commit: string, message: string): Promise<string> {
  const res = await githubPush(hookUrl, secret, { branch: 'main', commit, message });
  expect(res.status).toBe(201);
  expect(res.body.bundles).toHaveLength(1);
  return res.body.bundles![0]!.name;
}

const staging = (bundle?: string) => servedPage(kc, ns.name, 'site-staging', web.port, bundle);

beforeAll(
  step(() => ns.name, setUp),
  300_000,
);

/** Namespace, host services, Slipway's processes and the project's objects. */
async function setUp() {
  ns = await applicationNamespace(kc, 'e2e');
  const address = node.hostAddress;
  [git, mariadb, postgres] = await Promise.all([
    startGitServer(address, LOG_DIR),
    startMariaDb(address, LOG_DIR),
    startPostgres(address, LOG_DIR),
  ]);
  slipway = await startSlipway(testState().controllerKubeconfig, ns.name, node);
  const backupStorage = backupVolume(ns.name, backups);
  await kubectlApply([backupStorage.volume]);
  await apply(
    backupStorage.claim,
    deployment('site-staging'),
    deployment('site-production'),
    databaseSecret('db-staging', mariadb),
    databaseSecret('db-production', postgres),
    siteProject(ns.name, git.url),
    environment('staging', 'mysql', true),
    environment('production', 'postgresql'),
    mainToStaging,
  );
  ({ url: hookUrl, secret } = await siteWebhook(ns.name));
  await kubectlApply(tenantRole(ns.name, TENANT));
}

afterAll(async () => {
  await slipway?.stop();
  await Promise.all([git?.stop(), mariadb?.stop(), postgres?.stop()]);
  await ns?.remove();
  await kubectl(['delete', 'pv', `${ns?.name}-backups`, '--ignore-not-found']).catch(() => undefined);
  rmSync(backups, { recursive: true, force: true });
});

describe('push to deploy on a real node', () => {
  let v1: string;

  it$('a manual build of a commit is backed up from PostgreSQL and rolled out to production', async () => {
    v1 = await git.commit({ 'web/index.html': '<h1>Site v1</h1>\n' }, 'First version');
    await apply(manualBundle('site-manual-1', v1, web.image, 'production'));
    const bundle = await finalBundle(kc, ns.name, 'site-manual-1');
    expect(bundle.status?.phase).toBe('Ready');
    expect(await servedPage(kc, ns.name, 'site-production', web.port, 'site-manual-1')).toBe(
      '200 <h1>Site v1</h1>\n',
    );
    expect(await postgres.restoreRows(backupFile(bundle, backups))).toEqual(['one', 'two']);
  });

  it$(
    'a GitHub push to main is built, backed up from MariaDB and serves the pushed page on staging',
    async () => {
      const name = await push(v1, 'First version');
      const bundle = await finalBundle(kc, ns.name, name);
      expect(bundle.status?.phase).toBe('Ready');
      expect(bundle.status?.image).toContain(`${node.registry}/`);
      expect(await staging(name)).toBe('200 <h1>Site v1</h1>\n');
      // Deployed by digest: the one the tag has in the registry, in the Deployment and its pod.
      const [tagged, digest] = bundle.status!.image!.split('@');
      expect(digest).toMatch(/^sha256:[a-f0-9]{64}$/);
      expect(await registryDigest(node, tagged!)).toBe(digest);
      const { stdout: running } = await kubectl([
        'get',
        'deployment',
        'site-staging',
        '-n',
        ns.name,
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ]);
      expect(running).toBe(bundle.status?.image);
      expect(await mariadb.restoreRows(backupFile(bundle, backups))).toEqual(['one', 'two']);
    },
  );

  it$('a second push that changes a file changes the served page', async () => {
    const v2 = await git.commit({ 'web/index.html': '<h1>Site v2</h1>\n' }, 'Second version');
    const name = await push(v2, 'Second version');
    expect((await finalBundle(kc, ns.name, name)).status?.phase).toBe('Ready');
    expect(await staging(name)).toBe('200 <h1>Site v2</h1>\n');
  });

  it$('the real upload.sh uploads a directory with curl and the same chain serves it', async () => {
    const before = new Set((await api.list<BundleObject>('Bundle', ns.name)).map((b) => b.metadata.name));
    // As in CI: the script returns only once the bundle is built, backed up and rolled out.
    const { stdout } = await runUploadScript(
      slipway.gatewayUrl,
      `site-${ns.name}`,
      secret,
      '<h1>Site v3, uploaded</h1>\n',
    );
    const created = (await api.list<BundleObject>('Bundle', ns.name)).filter(
      (b) => !before.has(b.metadata.name),
    );
    expect(created.map((b) => b.spec.trigger.type)).toEqual(['Upload']);
    const name = created[0]!.metadata.name;
    expect(stdout).toMatch(new RegExp(`^bundle ${name}: Building`, 'm'));
    expect(stdout).toMatch(
      new RegExp(`^bundle ${name}: Ready \\(Succeeded\\): environment staging runs image`, 'm'),
    );
    const ready = await api.get<BundleObject>('Bundle', ns.name, name);
    expect(ready.status?.phase).toBe('Ready');
    expect(await staging(name)).toBe('200 <h1>Site v3, uploaded</h1>\n');
  });

  describe('failures leave the last good version serving', () => {
    const serving = '200 <h1>Site v3, uploaded</h1>\n';

    it$('a push of a commit the repository does not have fails the build', async () => {
      const name = await push('0123456789abcdef0123456789abcdef01234567', 'Not in the repository');
      const bundle = await finalBundle(kc, ns.name, name);
      expect(bundle.status?.phase).toBe('Failed');
      expect(readyCondition(bundle)?.reason).toBe('BuildFailed');
      expect(readyCondition(bundle)?.message).toMatch(
        /Container fetch exited with code 1; its output ends: .*commit 0123456789abcdef0123456789abcdef01234567 is not in the repository git:/,
      );
      expect(await staging()).toBe(serving);
    });

    it$('a wrong database password fails the backup and deploys nothing', async () => {
      await apply(databaseSecret('db-staging', mariadb, 'not-the-password'));
      const v4 = await git.commit({ 'web/index.html': '<h1>Site v4</h1>\n' }, 'Fourth version');
      let bundle: BundleObject;
      try {
        bundle = await finalBundle(kc, ns.name, await push(v4, 'Fourth version'));
      } finally {
        await apply(databaseSecret('db-staging', mariadb));
      }
      expect(bundle.status?.phase).toBe('Failed');
      expect(readyCondition(bundle)?.reason).toBe('BackupFailed');
      expect(readyCondition(bundle)?.message).toMatch(
        /Container dump exited with code 2; its output ends: .*Access denied for user 'app'/,
      );
      expect(readyCondition(bundle)?.message).not.toContain('not-the-password');
      expect(await staging()).toBe(serving);
    });

    it$('a base image that does not exist fails the build', async () => {
      const head = await git.commit({ 'web/index.html': '<h1>Site v5</h1>\n' }, 'Fifth version');
      await apply(
        manualBundle('site-missing-base', head, `${node.registry}/slipway/no-such-image:1`, 'staging'),
      );
      const bundle = await finalBundle(kc, ns.name, 'site-missing-base');
      expect(bundle.status?.phase).toBe('Failed');
      expect(readyCondition(bundle)?.reason).toBe('BuildFailed');
      expect(readyCondition(bundle)?.message).toMatch(
        /Container build exited with code 1; its output ends: .*no-such-image:1.*not found/,
      );
      expect(await staging()).toBe(serving);
    });

    it$('a container that exits at start fails the rollout', async () => {
      const head = await git.commit({ 'web/index.html': '<h1>Site v6</h1>\n' }, 'Sixth version');
      // The tools image's command is a shell that exits at once without a terminal.
      await apply(manualBundle('site-exits', head, node.images.fetch, 'staging'));
      // Seconds after the pod first exits, not at the 30 s deadline: the bundle names the crash loop.
      const crashing = await waitFor(
        'the crash loop to be reported',
        async () => {
          const b = await api.get<BundleObject>('Bundle', ns.name, 'site-exits');
          return readyCondition(b)?.reason === 'CrashLoop' ? b : undefined;
        },
        60_000,
      );
      expect(crashing.status?.phase).toBe('Deploying');
      expect(readyCondition(crashing)?.message).toMatch(
        /^rolling out to Deployment site-staging: container web of pod site-staging-\S+ keeps crashing \(\d+ restarts; last exit code 0 \(Completed\)\)$/,
      );
      const bundle = await finalBundle(kc, ns.name, 'site-exits');
      expect(bundle.status?.phase).toBe('Failed');
      expect(readyCondition(bundle)?.reason).toBe('RolloutFailed');
      expect(readyCondition(bundle)?.message).toMatch(
        /exceeded its progress deadline.*; container web of pod .* keeps crashing.*; rolling back to bundle site-\w+$/,
      );
      // staging has autoRollback: the bundle it ran before goes back out, its image, no build.
      const rollback = await finalBundle(kc, ns.name, 'site-exits-rollback');
      expect(rollback.spec.trigger.type).toBe('Rollback');
      // Owned by the project, like every bundle Slipway makes.
      expect(rollback.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)).toEqual([
        `Project/${rollback.spec.projectRef.name}`,
      ]);
      expect(rollback.status?.phase).toBe('Ready');
      expect(rollback.status?.conditions?.find((c) => c.type === 'Built')?.reason).toBe('Reused');
      const restored = await api.get<BundleObject>('Bundle', ns.name, rollback.spec.source.bundleRef!.name);
      expect(rollback.status?.image).toBe(restored.status?.image);
      expect(await staging('site-exits-rollback')).toBe(serving);
    });

    it$(
      'a database Secret without its password: no backup starts, the bundle says why in seconds; fixed, the deploy goes on',
      async () => {
        const withoutPassword = databaseSecret('db-staging', mariadb);
        delete (withoutPassword.stringData as Partial<typeof withoutPassword.stringData>).password;
        await kubectl(['delete', 'secret', 'db-staging', '-n', ns.name]);
        await apply(withoutPassword);
        // Referenced Secrets are not watched: the Environment reads them on its own events (or
        // every 5 minutes). Touch it, as a user would after changing the Secret, until it has.
        await waitFor(
          'the environment to say its Secret lacks a key',
          async () => {
            await kubectl([
              'annotate',
              'environment',
              'staging',
              '-n',
              ns.name,
              `e2e.slipway.dev/touched=${Date.now()}`,
              '--overwrite',
            ]);
            const env = await api.get<{ status?: { conditions?: Array<{ type: string; reason: string }> } }>(
              'Environment',
              ns.name,
              'staging',
            );
            return (
              env.status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'DatabaseSecretIncomplete'
            );
          },
          60_000,
          1000,
        );
        const head = await git.commit({ 'web/index.html': '<h1>Site v7</h1>\n' }, 'Seventh version');
        // A manual build on the static-web base again (a push would copy site-exits' base).
        const name = 'site-v7';
        await apply(manualBundle(name, head, web.image, 'staging'));
        const blocked = await waitFor(
          'the bundle to say what its environment lacks',
          async () => {
            const b = await api.get<BundleObject>('Bundle', ns.name, name);
            return readyCondition(b)?.reason === 'EnvironmentNotReady' ? b : undefined;
          },
          120_000,
        );
        expect(readyCondition(blocked)?.message).toMatch(
          /^environment staging is not ready \(DatabaseSecretIncomplete\): .*password/,
        );
        // Nothing that cannot work was started.
        await expect(kubectl(['get', 'job', `${name}-backup`, '-n', ns.name])).rejects.toThrow(/NotFound/);
        const environment = await api.get<{
          status?: { conditions?: Array<{ type: string; reason: string }> };
        }>('Environment', ns.name, 'staging');
        expect(environment.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe(
          'DatabaseSecretIncomplete',
        );
        await apply(databaseSecret('db-staging', mariadb));
        const bundle = await finalBundle(kc, ns.name, name);
        expect(bundle.status?.phase).toBe('Ready');
        expect(await staging(name)).toBe('200 <h1>Site v7</h1>\n');
      },
    );
  });
  describe('build steps', () => {
    const php = () => node.baseImages.php!;
    // A Craft-style project: web/ is served, vendor/ is what `composer install` makes of
    // composer.json (a path repository, so no network is needed).
    const composerProject = (require: Record<string, string>) => ({
      'composer.json': JSON.stringify({
        name: 'example/site',
        require,
        repositories: [
          { type: 'path', url: 'packages/*', options: { symlink: false } },
          { 'packagist.org': false },
        ],
      }),
      'packages/greeting/composer.json': JSON.stringify({
        name: 'example/greeting',
        version: '1.0.0',
        autoload: { 'psr-4': { 'Example\\Greeting\\': 'src/' } },
      }),
      'packages/greeting/src/Greeter.php':
        '<?php\nnamespace Example\\Greeting;\nclass Greeter { public static function hello(string $who): string { return "Hello, $who, from a Composer package"; } }\n',
      'web/index.php':
        "<?php\nrequire __DIR__ . '/../vendor/autoload.php';\necho Example\\Greeting\\Greeter::hello('PHP'), '; ', file_get_contents(__DIR__ . '/build.txt');\n",
    });
    const composerBundle = (name: string, commit: string) => {
      const bundle = manualBundle(name, commit, php().image, 'production');
      return {
        ...bundle,
        spec: {
          ...bundle.spec,
          directoryMap: { web: 'web', vendor: 'vendor' },
          buildSteps: {
            image: node.builderImages.composer!,
            commands: [
              'composer install --no-dev --no-interaction --no-progress',
              'printf \'%s\\n\' "$BUILD_LABEL" > web/build.txt',
            ],
            env: { BUILD_LABEL: 'built by step 2, with "quotes", commas' },
          },
        },
      };
    };

    /** What `kubectl slipway logs <bundle>` prints. */
    const logsOf = async (name: string, ...flags: string[]) =>
      (
        await run(join(ROOT, 'bin', 'kubectl-slipway'), [
          'logs',
          name,
          '--kubeconfig',
          testState().kubeconfig,
          '-n',
          ns.name,
          ...flags,
        ])
      ).stdout;

    it$(
      'a PHP project is built with Composer in a builder image and runs on the PHP base image',
      async () => {
        const head = await git.commit(composerProject({ 'example/greeting': '*' }), 'Add PHP', 'php');
        await apply(composerBundle('site-php', head));
        const bundle = await finalBundle(kc, ns.name, 'site-php');
        expect(bundle.status?.phase).toBe('Ready');
        expect(await servedPage(kc, ns.name, 'site-production', php().port, 'site-php', '/index.php')).toBe(
          '200 Hello, PHP, from a Composer package; built by step 2, with "quotes", commas\n',
        );
        // kubectl slipway logs: the fetch, then the build with each step's command, then the backup.
        const logs = await logsOf('site-php');
        expect(logs).toMatch(/^==> [0-9a-f]{16}-site-php-build-\w+\/fetch <==\n[\s\S]*fetching commit/m);
        expect(logs).toMatch(
          /^==> [0-9a-f]{16}-site-php-build-\w+\/build <==\n[\s\S]*\+ composer install --no-dev/m,
        );
        expect(logs.indexOf('/fetch <==')).toBeLessThan(logs.indexOf('/build <=='));
        // The push container, apart from the build steps, pushed what BuildKit wrote.
        expect(logs.indexOf('/build <==')).toBeLessThan(logs.indexOf('/push <=='));
        expect(bundle.status?.image).toMatch(/@sha256:[a-f0-9]{64}$/);
        expect(logs).toMatch(/==> site-php-backup-\w+\/dump <==\n[\s\S]*backup written to/);
        // A namespace user with rights in this namespace alone, none where the build ran, reads
        // the same: the build's logs through the gateway at the bundle's status.logsUrl.
        await expect(kubectl(['get', 'pods', '-n', DEFAULT_BUILD_NAMESPACE, '--as', TENANT])).rejects.toThrow(
          /forbidden/i,
        );
        const asTenant = await logsOf('site-php', '--as', TENANT);
        expect(asTenant).toMatch(/^==> [0-9a-f]{16}-site-php-build-\w+\/fetch <==\n[\s\S]*fetching commit/m);
        expect(asTenant).toMatch(
          /^==> [0-9a-f]{16}-site-php-build-\w+\/build <==\n[\s\S]*\+ composer install/m,
        );
        expect(asTenant).toMatch(/==> site-php-backup-\w+\/dump <==\n[\s\S]*backup written to/);
      },
    );

    it$(
      'a second push that changes only web/ reuses the cached install and serves the new page',
      async () => {
        const cachedBundle = (name: string, commit: string) => {
          const b = composerBundle(name, commit);
          const { commands, ...steps } = b.spec.buildSteps;
          return {
            ...b,
            spec: {
              ...b.spec,
              buildSteps: {
                ...steps,
                // composer install sees only these: composer.json and the path repository.
                install: { files: ['composer.json', 'packages/'], commands: [commands[0]!] },
                commands: commands.slice(1),
              },
            },
          };
        };
        const page = (version: string) => ({
          'web/index.php': `<?php\nrequire __DIR__ . '/../vendor/autoload.php';\necho '${version}: ', Example\\Greeting\\Greeter::hello('PHP'), '; ', file_get_contents(__DIR__ . '/build.txt');\n`,
        });
        const first = await git.commit(
          { ...composerProject({ 'example/greeting': '*' }), ...page('v1') },
          'Cache the install',
          'php',
        );
        await apply(cachedBundle('site-php-cold', first));
        expect((await finalBundle(kc, ns.name, 'site-php-cold')).status?.phase).toBe('Ready');
        const cold = await logsOf('site-php-cold');
        // The first build ran the install over its files and pushed the project's cache.
        expect(cold).toMatch(/^#\d+ \d+\.\d+ \+ composer install --no-dev/m);
        expect(cold).not.toMatch(/install cached/);
        expect(cold).toMatch(/^==> [0-9a-f]{16}-site-php-cold-build-\w+\/push-cache <==/m);

        const second = await git.commit(page('v2'), 'Change only the page', 'php');
        await apply(cachedBundle('site-php-warm', second));
        const warm = await finalBundle(kc, ns.name, 'site-php-warm');
        expect(warm.status?.phase).toBe('Ready');
        expect(
          await servedPage(kc, ns.name, 'site-production', php().port, 'site-php-warm', '/index.php'),
        ).toBe('200 v2: Hello, PHP, from a Composer package; built by step 2, with "quotes", commas\n');
        const logs = await logsOf('site-php-warm');
        // The install came from the cache (it did not run: no "+ composer install"); step 2 ran.
        expect(logs).toMatch(/^#\d+ install cached: /m);
        expect(logs).not.toMatch(/\+ composer install/);
        expect(logs).toMatch(/\+ printf/);
        // From the node's store: nothing fetched and unpacked again.
        expect(logs).toMatch(
          /^building in this node's store of the project's environment \(kept under \d+ MB\)$/m,
        );
        expect(logs).not.toMatch(/ extracting sha256:/);

        // A build on a node without the store (here: the store removed) imports the install
        // from the registry cache that push-cache pushed.
        const project = await api.get<{ metadata: { uid: string } }>('Project', ns.name, 'site');
        rmSync(join(operatorEnvFor(node).SLIPWAY_BUILD_STORE!, project.metadata.uid), { recursive: true });

        // With the install alone, the build stage is the install's tree plus the source, with
        // no builder image under it: the same cached install serves it.
        const third = await git.commit(
          {
            'web/index.php':
              "<?php\nrequire __DIR__ . '/../vendor/autoload.php';\necho 'v3: ', Example\\Greeting\\Greeter::hello('PHP'), \"\\n\";\n",
          },
          'Install only',
          'php',
        );
        const installOnly = cachedBundle('site-php-install-only', third);
        delete (installOnly.spec.buildSteps as { commands?: string[] }).commands;
        await apply(installOnly);
        expect((await finalBundle(kc, ns.name, 'site-php-install-only')).status?.phase).toBe('Ready');
        expect(
          await servedPage(kc, ns.name, 'site-production', php().port, 'site-php-install-only', '/index.php'),
        ).toBe('200 v3: Hello, PHP, from a Composer package\n');
        const alone = await logsOf('site-php-install-only');
        expect(alone).toMatch(/^#\d+ install cached: /m);
        expect(alone).toMatch(/^#\d+ extracting sha256:/m);
        expect(alone).toMatch(/\[build \d\/\d\] COPY --from=install \/src \/src/);
        expect(alone).not.toMatch(/\+ composer install|\+ printf/);
      },
    );

    it$("a build step that fails fails the build with the step's own output", async () => {
      const head = await git.commit(
        composerProject({ 'example/greeting': '*', 'example/missing': '^1.0' }),
        'Require a package that does not exist',
        'php',
      );
      await apply(composerBundle('site-php-broken', head));
      const bundle = await finalBundle(kc, ns.name, 'site-php-broken');
      expect(bundle.status?.phase).toBe('Failed');
      expect(readyCondition(bundle)?.reason).toBe('BuildFailed');
      expect(readyCondition(bundle)?.message).toMatch(
        /Container build exited with code 1: build step 1 exited with code 2; its output ends: .*Root composer\.json requires example\/missing/,
      );
      // The last good version (the cached-install test's, when it ran first) still serves.
      expect(await servedPage(kc, ns.name, 'site-production', php().port, undefined, '/index.php')).toMatch(
        /^200 (v3: )?Hello, PHP/,
      );
    });

    it$(
      "a build step reaches neither the metadata address, the node's kubelet, API server and etcd nor another namespace's pod; the registry, git server and gateway it needs stay open; the registry lets no build credential write or read another namespace's images",
      async () => {
        // A pod of this namespace, seen from the build namespace: another tenant's, to a build.
        const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({
          namespace: ns.name,
          labelSelector: 'app=site-staging',
        });
        const podIp = pods.items.find((p) => p.status?.phase === 'Running')!.status!.podIP!;
        // The API server's, the kubelet's and etcd's ports on the node's own address: open to the
        // host (checked here, so a refusal below is the policy's), and never a build's business.
        const apiServer = `${node.hostAddress}:${new URL(kc.getCurrentCluster()!.server).port}`;
        const kubelet = `${node.hostAddress}:10250`;
        const etcd = `${node.hostAddress}:2379`;
        for (const target of [apiServer, kubelet, etcd])
          expect(`${target}: ${await reachableFromHost(target)}`).toBe(`${target}: connected`);
        const blocked = ['169.254.169.254:80', kubelet, apiServer, etcd, `${podIp}:${web.port}`];
        // What the build does need, on the same host: the registry, the git server, the gateway.
        const open = [node.registry, new URL(git.url).host, new URL(slipway.gatewayUrl).host];
        // The project's repository (built by the tests before) and one of another namespace.
        const own = `builds/${ns.name}/site`;
        const other = 'builds/another-team/site';
        const head = await git.commit(
          { 'web/index.html': '<h1>probed</h1>\n' },
          'Probe the network',
          'probe',
        );
        await apply(
          siteManualBundle('site-probe', { commit: head, branch: 'probe' }, web.image, {
            buildSteps: {
              image: node.builderImages.node!,
              commands: ['node -e "$PROBE"', 'node -e "$REGISTRY_PROBE"'],
              env: {
                PROBE: PROBE_SCRIPT,
                BLOCKED: blocked.join(' '),
                OPEN: open.join(' '),
                // The credentials a build of this namespace holds (the pull one where its steps
                // run), tried on another namespace's repository and on its own.
                REGISTRY_PROBE: REGISTRY_PROBE_SCRIPT,
                REGISTRY: node.registry,
                OWN: own,
                OTHER: other,
                PULL: buildCredential(slipway.archiveUrlKey, 'pull', `builds/${ns.name}`),
                PUSH: buildCredential(slipway.archiveUrlKey, 'push', own),
              },
            },
          }),
        );
        const bundle = await finalBundle(kc, ns.name, 'site-probe');
        const logs = await logsOf('site-probe');
        // Each attempt is in the build's log: refused, or dropped until the step gave up.
        for (const target of blocked) expect(logs).toMatch(new RegExp(`probe ${target}: blocked \\(`));
        for (const target of open) expect(logs).toMatch(new RegExp(`probe ${target}: connected`));
        // The registry's door asks for the gateway's tokens, and refuses what they leave out.
        // Each refusal (401) beside its controls (own pull 200, own push 202).
        for (const line of registryProbeLines(slipway.registryRealm, own, other))
          expect(logs).toContain(line);
        // The git fetch and the image push went through: the bundle is built, by digest.
        expect(bundle.status?.phase).toBe('Built');
        expect(bundle.status?.image).toMatch(/@sha256:[a-f0-9]{64}$/);
      },
    );
  });
});
