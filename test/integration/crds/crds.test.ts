// The API server itself enforces the schemas and CEL rules generated from crds/*.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, kubectlApply, testKubeConfig } from '../../support/cluster.ts';

let ns: { name: string; remove: () => Promise<void> };

beforeAll(async () => {
  ns = await createNamespace(testKubeConfig(), 'crds');
});
afterAll(async () => ns.remove());

async function apply(object: unknown): Promise<string> {
  try {
    const { stdout } = await kubectlApply([object]);
    return stdout;
  } catch (err) {
    throw new Error((err as { stderr?: string }).stderr ?? String(err));
  }
}

describe('valid objects of every kind', () => {
  it('are accepted and listed by `kubectl get slipway`', async () => {
    const n = ns.name;
    const objects = [
      build.project('shop', build.inNamespace(n)),
      build.environment(
        'staging',
        build.inNamespace(n),
        build.spec({
          database: { engine: 'mysql', secretRef: { name: 'db' } },
          backupStorage: { persistentVolumeClaim: { claimName: 'backups' } },
        }),
      ),
      build.webhook(
        'main-to-staging',
        build.inNamespace(n),
        build.spec({ environmentRef: { name: 'staging' }, backupBeforeDeploy: true }),
      ),
      build.bundle('shop-manual-1', build.inNamespace(n)),
      build.statusPage(undefined, build.inNamespace(n)),
      build.statusComponent('api', build.inNamespace(n)),
      build.statusComponent('api-eu', build.inNamespace(n), build.spec({ parentRef: { name: 'api' } })),
      build.statusNotice('outage', build.inNamespace(n)),
      build.statusNotice(
        'db-upgrade',
        build.inNamespace(n),
        build.spec({
          type: 'planned',
          beginsAt: '2026-03-01T02:00:00Z',
          endsAt: '2026-03-01T04:00:00Z',
          updates: [],
        }),
      ),
      build.statusNotice(
        'welcome',
        build.inNamespace(n),
        build.spec({
          type: 'general',
          updates: [{ content: 'New status page', at: '2026-01-01T00:00:00Z' }],
        }),
      ),
    ];
    for (const object of objects) await apply(object);

    const { stdout } = await kubectl(['get', 'slipway', '-n', n, '-o', 'name']);
    expect(stdout.trim().split('\n').sort()).toEqual(
      [
        'bundle.slipway.dev/shop-manual-1',
        'environment.slipway.dev/staging',
        'project.slipway.dev/shop',
        'statuscomponent.slipway.dev/api',
        'statuscomponent.slipway.dev/api-eu',
        'statusnotice.slipway.dev/db-upgrade',
        'statusnotice.slipway.dev/outage',
        'statusnotice.slipway.dev/welcome',
        'statuspage.slipway.dev/status',
        'webhook.slipway.dev/main-to-staging',
      ].sort(),
    );
  });

  it('show printer columns in `kubectl get`', async () => {
    const { stdout } = await kubectl(['get', 'webhooks', '-n', ns.name]);
    const [header, row] = stdout.trim().split('\n');
    expect(header).toMatch(/NAME\s+PROJECT\s+BRANCH\s+MATCH\s+ENVIRONMENT\s+BACKUP\s+READY\s+AGE/);
    expect(row).toMatch(/main-to-staging\s+shop\s+main\s+Exact\s+staging\s+true/);
  });

  it('are explained field by field by `kubectl explain`', async () => {
    const trigger = (await kubectl(['explain', 'bundle.spec.trigger.type'])).stdout;
    expect(trigger).toMatch(
      /Manual \(made by a person\), Webhook \(a push\), Upload \(upload.sh\), Rollback\s+\(reuses\s+an\s+earlier\s+bundle\),\s+PullRequest\s+\(the\s+head\s+commit\s+of\s+a\s+Preview\)\s+or\s+Promotion/,
    );
    const gates = (await kubectl(['explain', 'promotion.spec.gates.noOpenIncident'])).stdout;
    expect(gates).toMatch(/No\s+unplanned\s+StatusNotice\s+is\s+open/);
    const preview = (await kubectl(['explain', 'preview.spec.approvedCommit'])).stdout;
    expect(preview).toMatch(/kubectl\s+slipway\s+preview\s+approve/);
    const status = (await kubectl(['explain', 'statusnotice.status'])).stdout;
    expect(status).toMatch(/What the operator observed and did/);
    expect(status).toMatch(/beganAt/);
  });

  it('apply defaults from the schema', async () => {
    const { stdout } = await kubectl([
      'get',
      'project',
      'shop',
      '-n',
      ns.name,
      '-o',
      'jsonpath={.spec.bundleHistoryLimit}',
    ]);
    expect(stdout).toBe('20');
  });
});

describe('invalid objects are rejected by the API server', () => {
  const n = () => ns.name;
  it.each([
    [
      'backupBeforeDeploy without environmentRef',
      () => build.webhook('bad-backup', build.inNamespace(n()), build.spec({ backupBeforeDeploy: true })),
      'backupBeforeDeploy requires environmentRef',
    ],
    [
      'an unknown matchMode',
      () => build.webhook('bad-mode', build.inNamespace(n()), build.spec({ matchMode: 'Regex' })),
      'Unsupported value: "Regex"',
    ],
    [
      'a Bundle with both a git and an archive source',
      () =>
        build.bundle(
          'bad-source',
          build.inNamespace(n()),
          build.spec({
            source: {
              git: { commit: 'b'.repeat(40) },
              archive: { url: 'https://x/a.tgz', sha256: 'c'.repeat(64), sizeBytes: 10 },
            },
          }),
        ),
      'source needs exactly one of git, archive or bundleRef',
    ],
    [
      'build steps with neither install nor commands',
      () =>
        build.bundle(
          'bad-steps',
          build.inNamespace(n()),
          build.spec({ buildSteps: { image: 'composer:2' } }),
        ),
      'buildSteps needs install or commands',
    ],
    [
      'an install phase without files',
      () =>
        build.bundle(
          'bad-install',
          build.inNamespace(n()),
          build.spec({
            buildSteps: { image: 'composer:2', install: { files: [], commands: ['composer install'] } },
          }),
        ),
      'spec.buildSteps.install.files: Invalid value',
    ],
    [
      'a manual Bundle without baseSoftware and directoryMap',
      () => {
        const b = build.bundle('bad-manual', build.inNamespace(n()));
        delete (b.spec as Record<string, unknown>).baseSoftware;
        return b;
      },
      'a manual bundle needs baseSoftware and directoryMap',
    ],
    [
      'a planned notice without beginsAt/endsAt',
      () =>
        build.statusNotice(
          'bad-planned',
          build.inNamespace(n()),
          build.spec({ type: 'planned', updates: [] }),
        ),
      'a planned notice needs beginsAt and endsAt',
    ],
    [
      'a notice state not allowed for its type',
      () =>
        build.statusNotice(
          'bad-state',
          build.inNamespace(n()),
          build.spec({
            updates: [{ state: 'underway', content: 'x', at: '2026-01-01T00:00:00Z' }],
          }),
        ),
      'an unplanned notice allows only the states',
    ],
    [
      'any state on a general notice',
      () =>
        build.statusNotice(
          'bad-general',
          build.inNamespace(n()),
          build.spec({
            type: 'general',
            updates: [{ state: 'resolved', content: 'x', at: '2026-01-01T00:00:00Z' }],
          }),
        ),
      'a general notice has no state',
    ],
    [
      "a status page URL that is not http(s) (it becomes every feed entry's link)",
      () =>
        build.statusPage(
          'bad-url',
          build.inNamespace(n()),
          build.spec({ url: 'javascript:alert(document.domain)//x' }),
        ),
      'url must be an absolute http or https address',
    ],
    [
      'a status page URL without a scheme',
      () => build.statusPage('no-scheme', build.inNamespace(n()), build.spec({ url: 'status.example.com' })),
      'url must be an absolute http or https address',
    ],
    [
      'a slug that is not a DNS label',
      () => build.project('bad-slug', build.inNamespace(n()), build.spec({ slug: 'Not_A_Label' })),
      'spec.slug',
    ],
  ])('%s', async (_what, make, message) => {
    const object = make();
    await expect(apply(object)).rejects.toThrow(message);
    await expect(
      kubectl(['get', object.kind.toLowerCase(), object.metadata.name, '-n', n()]),
    ).rejects.toThrow(/NotFound/);
  });

  it('a Bundle spec cannot change after creation', async () => {
    await apply(build.bundle('immutable', build.inNamespace(n())));
    await expect(
      apply(build.bundle('immutable', build.inNamespace(n()), build.spec({ comment: 'changed' }))),
    ).rejects.toThrow('a Bundle spec is immutable');
  });

  it('a status id cannot change once set', async () => {
    await apply(build.statusComponent('fixed-id', build.inNamespace(n()), build.spec({ id: 7 })));
    await expect(
      apply(build.statusComponent('fixed-id', build.inNamespace(n()), build.spec({ id: 8 }))),
    ).rejects.toThrow('id cannot change once set');
  });
});
