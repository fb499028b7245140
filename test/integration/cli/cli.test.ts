// kubectl slipway as a user runs it (bin/kubectl-slipway, a real process with --kubeconfig) against
// a real API server and a running operator: connect a provider, see what runs, build and deploy,
// follow, roll back, read the history, post an incident and read the status — the human output
// and -o json, and the exit codes scripts rely on.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject, EnvironmentObject, PreviewObject, ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import type { Operator } from '../../../operator/operator.ts';
import { withToken } from '../../../rules/webhook-url.ts';
import { bundle, preview, statusComponent, statusPage, inNamespace, spec } from '../../support/builders.ts';
import {
  controllerKubeConfig,
  createNamespace,
  kubectlPatch,
  testKubeConfig,
  waitFor,
  webhookSecretValue,
  kubectlApply,
} from '../../support/cluster.ts';
import { runPlugin } from '../../support/plugin.ts';
import { clients, createProject, startOperator, webDeployment } from '../operator/support.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const kc = testKubeConfig();
const { slipway } = clients(kc);
let ns: { name: string; remove: () => Promise<void> };
let operator: Operator;

/** `kubectl slipway <args>` with the test cluster's kubeconfig, in the test namespace. */
const cli = (...args: string[]) => runPlugin(ns.name, ...args);

beforeAll(async () => {
  ns = await createNamespace(kc, 'cli');
  await createProject(kc, ns.name);
  await clients(kc).apps.createNamespacedDeployment({
    namespace: ns.name,
    body: webDeployment(ns.name, 'shop-web'),
  });
  await kubectlApply([
    {
      apiVersion: 'slipway.dev/v1alpha1',
      kind: 'Environment',
      metadata: { name: 'staging', namespace: ns.name },
      spec: { projectRef: { name: 'shop' }, deploymentRef: { name: 'shop-web', container: 'web' } },
    },
    bundle('shop-manual-1', inNamespace(ns.name), spec({ deploy: { environmentRef: { name: 'staging' } } })),
    statusPage(
      'status',
      inNamespace(ns.name),
      spec({ name: 'Acme Hosting', url: 'https://status.acme.example' }),
    ),
    statusComponent('databases', inNamespace(ns.name), spec({ name: 'Databases', state: 'degraded' })),
  ]);
  operator = await startOperator(kc, ns.name);
  await waitFor(
    'the first bundle to be deployed',
    async () =>
      (await slipway.get<BundleObject>('Bundle', ns.name, 'shop-manual-1')).status?.phase === 'Ready',
    60_000,
    250,
  );
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('kubectl slipway', () => {
  it('lists every command in --help, and says how to use one it cannot read (exit 2)', async () => {
    const help = await cli('--help');
    expect(help).toEqual(expect.objectContaining({ code: 0 }));
    for (const command of [
      'hook',
      'get',
      'build',
      'logs',
      'wait',
      'rollback',
      'history',
      'preview',
      'notice',
      'status',
      'completion',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const missing = await cli('build', 'shop');
    expect(missing).toEqual(expect.objectContaining({ code: 2 }));
    expect(missing.stderr).toMatch(
      /^error: --commit is required\n\nUsage: kubectl slipway build <project> --commit <sha>/,
    );
    expect((await cli('get', 'pods')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('completion', 'bash')).stdout).toContain(
      'complete -F _kubectl_slipway kubectl-slipway',
    );
    // What kubectl asks bin/kubectl_complete-slipway for "kubectl slipway notice re<TAB>".
    const completion = await new Promise<string>((resolve, reject) =>
      execFile(join(ROOT, 'bin', 'kubectl_complete-slipway'), ['notice', 're'], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(completion).toBe('resolve\n:4\n');
  });

  it('hook: the URL, a hidden secret, and what goes into which field of GitHub’s form', async () => {
    const project = await slipway.get<ProjectObject>('Project', ns.name, 'shop');
    // The Project shows the URL without its token; the command derives it from the Secret.
    const secret = await webhookSecretValue(ns.name, project.status!.webhook!.secretRef.name);
    const url = withToken(project.status!.webhook!.url, project.status!.slug!, secret);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const masked = `${url.slice(0, url.lastIndexOf('/') + 1)}<token: add --show-secret>`;
    // Flags before the command, as kubectl users write them.
    const hidden = await cli('-n', ns.name, 'hook', 'shop', '--provider', 'github');
    expect(hidden).toEqual(expect.objectContaining({ code: 0 }));
    expect(hidden.stdout).toContain(`Webhook URL:  ${masked}`);
    expect(hidden.stdout).toMatch(/GitHub: Repository → Settings → Webhooks → Add webhook/);
    expect(hidden.stdout).toContain(`Payload URL:   ${masked}`);
    expect(hidden.stdout).toMatch(/Content type: +application\/json/);
    expect(hidden.stdout).toMatch(
      /Which events: +Let me select individual events: Pushes, and Pull requests/,
    );
    expect(hidden.stdout).toMatch(/Secret: +<hidden: add --show-secret>/);
    expect(hidden.stdout).not.toContain(secret);
    expect(hidden.stdout).not.toContain(token);
    const shown = JSON.parse(
      (await cli('hook', 'shop', '--provider', 'azure-devops', '--show-secret', '-o', 'json')).stdout,
    );
    expect(shown).toMatchObject({ url, secret, provider: 'azure-devops' });
    expect(shown.fields['HTTP headers']).toBe(`X-Provider-Service-Key: ${secret}`);
    expect((await cli('hook', 'nope')).code).toBe(1);
    expect((await cli('hook', 'shop', '--provider', 'gogs')).code).toBe(2);
    // Gitea's form, and what commit statuses (spec.report) need.
    const gitea = await cli('-n', ns.name, 'hook', 'shop', '--provider', 'gitea');
    expect(gitea.stdout).toMatch(/Gitea: Repository → Settings → Webhooks → Add webhook → Gitea/);
    expect(gitea.stdout).toMatch(/Target URL: +/);
    expect(gitea.stdout).toMatch(
      /Commit statuses on Gitea \(optional, spec\.report\): an access token with the write:repository scope/,
    );
    expect(gitea.stdout).toContain(
      `kubectl -n ${ns.name} create secret generic shop-git-token --from-literal=token=<token>`,
    );
    expect(gitea.stdout).toContain('spec.report: {"tokenSecretRef":{"name":"shop-git-token","key":"token"}}');
  });

  it('hook rotate: a new secret, and the URL that goes with it', async () => {
    const before = JSON.parse((await cli('hook', 'shop', '--show-secret', '-o', 'json')).stdout);
    const rotated = await cli('hook', 'rotate', 'shop', '--show-secret', '-o', 'json');
    expect(rotated).toEqual(expect.objectContaining({ code: 0 }));
    const answer = JSON.parse(rotated.stdout);
    expect(answer.url).not.toBe(before.url);
    expect(answer.secret).not.toBe(before.secret);
    // What hook prints from now on, from the Secret.
    expect(JSON.parse((await cli('hook', 'shop', '--show-secret', '-o', 'json')).stdout)).toMatchObject({
      url: answer.url,
      secret: answer.secret,
    });
    expect(rotated.stderr).toContain('rotated the webhook secret of project shop');
  });

  let built: string;
  it('build --deploy --wait: a bundle of the commit with the manual bundle’s settings, followed to Ready', async () => {
    const run = await cli('build', 'shop', '--commit', 'ABCDEF1234567', '--deploy', 'staging', '--wait');
    expect(run).toEqual(expect.objectContaining({ code: 0 }));
    built = run.stdout.trim();
    expect(run.stderr).toMatch(new RegExp(`^bundle ${built}: Ready \\(Succeeded\\)`, 'm'));
    const bundle = await slipway.get<BundleObject>('Bundle', ns.name, built);
    expect(bundle.spec).toMatchObject({
      source: { git: { commit: 'abcdef1234567' } },
      baseSoftware: { image: 'php:8.3-fpm' },
      trigger: { type: 'Manual' },
      deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false },
    });
    // Owned by its Project, as the gateway's bundles are: deleting the Project deletes it.
    const { uid } = (await slipway.get<ProjectObject>('Project', ns.name, 'shop')).metadata;
    expect(bundle.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Project', name: 'shop', uid }),
    ]);
    expect((await cli('wait', built)).code).toBe(0);
  });

  it('get: projects, environments with the bundle each runs, bundles newest first', async () => {
    const all = await cli('get');
    expect(all).toEqual(expect.objectContaining({ code: 0 }));
    expect(all.stdout).toMatch(/^PROJECTS\nNAME +SLUG +READY +REASON +AGE\nshop +shop-cli-/m);
    expect(all.stdout).toMatch(
      new RegExp(
        `^ENVIRONMENTS\\nNAME +PROJECT +DEPLOYMENT +BUNDLE +SINCE +READY +REASON\\nstaging +shop +shop-web +${built} `,
        'm',
      ),
    );
    const bundles = JSON.parse((await cli('get', 'bundles', '-o', 'json')).stdout) as {
      items: BundleObject[];
    };
    expect(bundles.items.map((b) => b.metadata.name)).toEqual([built, 'shop-manual-1']);
    expect((await cli('get', 'swb', '-o', 'wide')).stdout).toMatch(
      /^NAME +PROJECT +TRIGGER +COMMIT +ENVIRONMENT +PHASE +AGE +REASON +COMMENT$/m,
    );
    // The CRDs' short names, as `kubectl get` takes them.
    expect((await cli('get', 'swproj')).stdout).toMatch(/^NAME +SLUG +READY +REASON +AGE\nshop /);
    expect((await cli('get', 'swenv')).stdout).toMatch(/^NAME +PROJECT +DEPLOYMENT/);
  });

  it('rollback, then history: the previous bundle’s image back without a build, every deployment listed', async () => {
    const run = await cli('rollback', 'staging', '--wait');
    expect(run).toEqual(expect.objectContaining({ code: 0 }));
    const rollback = run.stdout.trim();
    const bundle = await slipway.get<BundleObject>('Bundle', ns.name, rollback);
    expect(bundle.spec.source.bundleRef).toEqual({ name: 'shop-manual-1' });
    expect(bundle.status?.phase).toBe('Ready');
    expect(bundle.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)).toEqual(['Project/shop']);
    await waitFor(
      'the environment to run the rollback',
      async () =>
        (await slipway.get<EnvironmentObject>('Environment', ns.name, 'staging')).status?.currentBundle ===
        rollback,
      30_000,
      250,
    );
    const history = await cli('history', 'staging');
    const rows = history.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^BUNDLE +TRIGGER +COMMIT +RESULT +WHEN +BACKUP +COMMENT$/);
    expect(rows.slice(1).map((r) => r.split(/\s+/)[0])).toEqual([rollback, built, 'shop-manual-1']);
    expect(rows[1]).toMatch(/ Rollback +\(shop-manual-1\) +Ready /);
    // Again: nothing older than the image it runs now (the bundle just left is not "previous").
    const again = await cli('rollback', 'staging');
    expect(again).toEqual(expect.objectContaining({ code: 1 }));
    expect(again.stderr).toMatch(/environment staging has no good bundle older than the one it runs/);
    expect((await cli('history', 'nope')).code).toBe(1);
    const json = JSON.parse((await cli('history', 'staging', '-o', 'json')).stdout) as {
      items: BundleObject[];
    };
    expect(json.items).toHaveLength(3);
  });

  it('wait: exit 3 when the time runs out, 1 for a bundle that does not exist', async () => {
    await kubectlApply([
      bundle('orphan', inNamespace(ns.name), spec({ projectRef: { name: 'no-such-project' } })),
    ]);
    const timedOut = await cli('wait', 'orphan', '--timeout', '2s');
    expect(timedOut).toEqual(expect.objectContaining({ code: 3 }));
    expect(timedOut.stderr).toMatch(/bundle orphan has not finished after 2 s: Pending \(ProjectNotFound\)/);
    expect((await cli('wait', 'never-made')).code).toBe(1);
  });

  it('wait: prints why a bundle waits for its environment, and exits 1 with it when the wait ends', async () => {
    // An Environment whose Deployment does not exist, waited for 10 s (the shortest allowed).
    await kubectlApply([
      {
        apiVersion: 'slipway.dev/v1alpha1',
        kind: 'Environment',
        metadata: { name: 'nowhere', namespace: ns.name },
        spec: { projectRef: { name: 'shop' }, deploymentRef: { name: 'missing' }, waitTimeoutSeconds: 10 },
      },
    ]);
    const deploy = { environmentRef: { name: 'nowhere' }, backupBeforeDeploy: false };
    await kubectlApply([bundle('stuck', inNamespace(ns.name), spec({ deploy }))]);
    const run = await cli('wait', 'stuck', '--timeout', '2m');
    expect(run.code).toBe(1);
    // While it waited, the reason; then the failure, with the same reason.
    expect(run.stderr).toMatch(
      /^bundle stuck: Built \(DeploymentNotFound\): Deployment missing does not exist$/m,
    );
    expect(run.stderr).toMatch(
      /error: bundle stuck ended Failed \(DeploymentNotFound\): Deployment missing does not exist; gave up after waiting 10 s \(the Environment's spec\.waitTimeoutSeconds\)/,
    );
  });

  it('notice open, update, resolve; status shows what the public page shows', async () => {
    const opened = await cli(
      'notice',
      'open',
      '--type',
      'unplanned',
      '--subject',
      'Slow queries on MySQL',
      '--component',
      'databases',
      '--message',
      'We are looking into slow queries.',
    );
    expect(opened).toEqual(expect.objectContaining({ code: 0 }));
    const name = opened.stdout.trim();
    expect(name).toMatch(/^slow-queries-on-mysql-[0-9a-f]{4}$/);
    expect(
      (await cli('notice', 'update', name, '--state', 'identified', '--message', 'A noisy neighbour.')).code,
    ).toBe(0);
    await waitFor(
      'the operator to give the notice an id',
      async () => {
        const list = JSON.parse((await cli('notice', 'list', '-o', 'json')).stdout) as {
          items: Array<{ status?: { id?: number } }>;
        };
        return list.items[0]?.status?.id !== undefined;
      },
      30_000,
      250,
    );
    const list = await cli('notice', 'list');
    expect(list.stdout).toMatch(
      new RegExp(`^${name} +\\d+ +unplanned +identified +present +Slow queries on MySQL `, 'm'),
    );
    const status = await cli('status');
    expect(status.stdout).toMatch(/^Acme Hosting: Some systems are experiencing problems \(degraded\)$/m);
    expect(status.stdout).toMatch(/^ {2}Databases: degraded$/m);
    expect(status.stdout).toMatch(
      /^ {2}#\d+ unplanned identified: Slow queries on MySQL\n {6}A noisy neighbour\.$/m,
    );
    expect((await cli('notice', 'resolve', name, '--message', 'Fixed.')).code).toBe(0);
    const after = JSON.parse((await cli('status', '-o', 'json')).stdout);
    expect(after.page).toMatchObject({ state: 'operational', stateText: 'All systems operational' });
    const refused = await cli('notice', 'update', name, '--state', 'complete', '--message', 'x');
    expect(refused).toEqual(expect.objectContaining({ code: 1 }));
    expect(refused.stderr).toMatch(/an unplanned notice allows only the states/);
  });
  it('preview list, approve and remove: a fork waits for its head commit to be approved, then builds', async () => {
    await kubectlPatch('project', 'shop', ns.name, {
      spec: {
        previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.test', forks: 'Approve' },
      },
    });
    // As the gateway makes it from a fork's pull request.
    await slipwayApi(controllerKubeConfig()).create(
      'Preview',
      preview('shop-pr-9', inNamespace(ns.name), spec({ number: 9, fork: true, title: 'From a fork' })),
    );
    await waitFor('the fork to wait for an approval', async () => {
      const listed = await cli('preview', 'list', '-o', 'wide');
      return /WaitingForApproval/.test(listed.stdout) ? listed : undefined;
    });
    const listed = await cli('preview', 'list');
    expect(listed.stdout).toMatch(/NAME\s+PROJECT\s+PR\s+BRANCH\s+COMMIT\s+FORK\s+PHASE\s+URL\s+AGE/);
    expect(listed.stdout).toMatch(/shop-pr-9\s+shop\s+9\s+feature\s+aaaaaaaaaaaa\s+yes\s+Waiting/);
    // The reviewer read another commit than the head: refused, nothing approved.
    const stale = await cli('preview', 'approve', 'shop', '9', '--commit', 'b'.repeat(40));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`its head commit is ${'a'.repeat(40)}, not ${'b'.repeat(40)}`);
    // The first digits of the head are not a review of it (they can be forged in minutes).
    const prefix = await cli('preview', 'approve', 'shop', '9', '--commit', 'aaaaaaa');
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toContain('name the whole commit you read (40 hex digits');
    const unnamed = await cli('preview', 'approve', 'shop', '9');
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('name the whole commit you read with --commit (its 40 hex digits)');
    // Nor can a prefix be written past the CLI: the field takes a whole commit only.
    await expect(
      slipway.patch('Preview', ns.name, 'shop-pr-9', { spec: { approvedCommit: 'aaaaaaa' } }),
    ).rejects.toMatchObject({ code: 422 });
    expect(
      (await slipway.get<PreviewObject>('Preview', ns.name, 'shop-pr-9')).spec.approvedCommit,
    ).toBeUndefined();
    const approved = await cli('preview', 'approve', 'shop', '9', '--commit', 'A'.repeat(40));
    expect(approved).toEqual(expect.objectContaining({ code: 0, stdout: 'shop-pr-9\n' }));
    expect(approved.stderr).toContain('approved head commit aaaaaaaaaaaa of pull request #9');
    const stored = await slipway.get<PreviewObject>('Preview', ns.name, 'shop-pr-9');
    expect(stored.spec.approvedCommit).toBe('a'.repeat(40));
    await waitFor('the approved fork to build', async () =>
      (await slipway.get<PreviewObject>('Preview', ns.name, 'shop-pr-9')).status?.bundle ? true : undefined,
    );
    expect((await cli('preview', 'approve', 'shop', 'nine')).code).toBe(2);
    expect(await cli('preview', 'remove', 'shop', '9')).toEqual(expect.objectContaining({ code: 0 }));
    expect((await cli('preview', 'remove', 'shop', '9')).stderr).toContain(
      'Preview ' + ns.name + '/shop-pr-9 not found',
    );
  });
});
