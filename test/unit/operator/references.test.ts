import { describe, expect, it } from '@jest/globals';
import { decideEnvironment, deploymentRecord } from '../../../operator/environment/decide.ts';
import { decideWebhook } from '../../../operator/webhook/decide.ts';
import {
  at,
  bundle,
  database,
  environment,
  project,
  webhook,
  spec,
  status,
  stored,
} from '../../support/builders.ts';
import { condition, deployment } from './builders.ts';

const URL = 'https://hooks.example.com/hooks/shop/tok';
const readyProject = () => {
  const p = project(undefined, stored());
  p.status = {
    webhook: { url: URL, secretRef: { name: 'shop-webhook', key: 'secret' } },
    conditions: [condition('Ready', 'True', 'WebhookReady')],
  };
  return p;
};

describe('decideEnvironment', () => {
  const cases = [
    {
      name: 'project missing',
      project: undefined,
      deployment: deployment(),
      env: environment(undefined, stored()),
      reason: 'ProjectNotFound',
    },
    {
      name: 'Deployment missing',
      project: project(undefined, stored()),
      deployment: undefined,
      env: environment(undefined, stored()),
      reason: 'DeploymentNotFound',
    },
    {
      name: 'named container missing',
      project: project(undefined, stored()),
      deployment: deployment(),
      env: environment('staging', stored(), spec({ deploymentRef: { name: 'shop-web', container: 'php' } })),
      reason: 'ContainerNotFound',
    },
    {
      name: 'everything there',
      project: project(undefined, stored()),
      deployment: deployment(),
      env: environment(undefined, stored()),
      reason: 'Valid',
    },
  ];
  it.each(cases)('$name → $reason', (c) => {
    const ready = decideEnvironment({ environment: c.env, project: c.project, deployment: c.deployment });
    expect(ready.reason).toBe(c.reason);
    expect(ready.status).toBe(c.reason === 'Valid' ? 'True' : 'False');
  });
});

describe('decideWebhook', () => {
  const cases = [
    {
      name: 'project missing',
      hook: webhook(undefined, stored()),
      project: undefined,
      env: undefined,
      reason: 'ProjectNotFound',
    },
    {
      name: 'project without URL yet',
      hook: webhook(undefined, stored()),
      project: project(undefined, stored()),
      env: undefined,
      reason: 'ProjectNotReady',
    },
    {
      name: 'environment missing',
      hook: webhook('main', stored(), spec({ environmentRef: { name: 'staging' } })),
      project: readyProject(),
      env: undefined,
      reason: 'EnvironmentNotFound',
    },
    {
      name: 'environment of another project',
      hook: webhook('main', stored(), spec({ environmentRef: { name: 'staging' } })),
      project: readyProject(),
      env: environment('staging', stored(), spec({ projectRef: { name: 'blog' } })),
      reason: 'EnvironmentProjectMismatch',
    },
    {
      name: 'backup asked, environment without database',
      hook: webhook(
        'main',
        stored(),
        spec({ environmentRef: { name: 'staging' }, backupBeforeDeploy: true }),
      ),
      project: readyProject(),
      env: environment('staging', stored()),
      reason: 'BackupNotConfigured',
    },
    {
      name: 'backup asked, environment with database',
      hook: webhook(
        'main',
        stored(),
        spec({ environmentRef: { name: 'staging' }, backupBeforeDeploy: true }),
      ),
      project: readyProject(),
      env: environment('staging', stored(), spec(database)),
      reason: 'Valid',
    },
    {
      name: 'build only',
      hook: webhook(undefined, stored()),
      project: readyProject(),
      env: undefined,
      reason: 'Valid',
    },
  ];
  it.each(cases)('$name → $reason', (c) => {
    const d = decideWebhook({ webhook: c.hook, project: c.project, environment: c.env, bundles: [] });
    expect(d.ready.reason).toBe(c.reason);
    expect(d.url).toBe(c.reason === 'Valid' ? URL : undefined);
  });

  it('records the newest bundle it triggered', () => {
    const trigger = { type: 'Webhook' as const, provider: 'github' as const, webhookRef: { name: 'main' } };
    const older = bundle(
      'b1',
      stored(1),
      spec({ trigger, source: { git: { commit: 'b'.repeat(40), branch: 'main' } } }),
    );
    const newer = bundle(
      'b2',
      stored(9),
      spec({ trigger, source: { git: { commit: 'c'.repeat(40), branch: 'main' } } }),
    );
    const d = decideWebhook({
      webhook: webhook(undefined, stored()),
      project: readyProject(),
      environment: undefined,
      bundles: [newer, older],
    });
    expect(d.lastTriggered).toEqual({ bundle: 'b2', commit: 'c'.repeat(40), branch: 'main', at: at(9) });
  });
});

describe('deploymentRecord: what an environment reports about its rollouts', () => {
  const b1 = (deployed?: ReturnType<typeof condition>) =>
    bundle(
      'b1',
      stored(),
      spec({ deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false } }),
      status({ conditions: deployed ? [deployed] : [] }),
    );
  const running = environment(
    'staging',
    stored(),
    spec({}),
    status({
      currentBundle: 'b0',
      lastDeployment: { bundle: 'b0', startedAt: at(10), finishedAt: at(20), result: 'Succeeded' },
    }),
  );
  const onB1 = deployment({ bundle: 'b1', startedAt: at(90) });

  it('names the bundle rolling out, then the one it runs', () => {
    expect(
      deploymentRecord(running, onB1, () => b1(condition('Deployed', 'Unknown', 'Progressing'))),
    ).toEqual({
      currentBundle: 'b0',
      lastDeployment: { bundle: 'b1', startedAt: at(90), finishedAt: null, result: 'InProgress' },
    });
    expect(deploymentRecord(running, onB1, () => b1(condition('Deployed', 'True', 'Succeeded')))).toEqual({
      currentBundle: 'b1',
      lastDeployment: { bundle: 'b1', startedAt: at(90), finishedAt: at(0), result: 'Succeeded' },
    });
  });

  it('keeps the current bundle when a rollout fails', () => {
    expect(
      deploymentRecord(running, onB1, () => b1(condition('Deployed', 'False', 'RolloutFailed'))),
    ).toEqual({
      currentBundle: 'b0',
      lastDeployment: { bundle: 'b1', startedAt: at(90), finishedAt: at(0), result: 'Failed' },
    });
  });

  it('records how a rollout ended that someone undid (kubectl rollout undo to a template naming no bundle)', () => {
    const rolling = environment(
      'staging',
      stored(),
      spec({}),
      status({ lastDeployment: { bundle: 'b1', startedAt: at(90), finishedAt: null, result: 'InProgress' } }),
    );
    expect(
      deploymentRecord(rolling, deployment(), () => b1(condition('Deployed', 'False', 'RolloutReplaced'))),
    ).toEqual({ lastDeployment: { bundle: 'b1', startedAt: at(90), finishedAt: at(0), result: 'Failed' } });
  });

  it('keeps what it said when the Deployment names no bundle or the bundle is gone', () => {
    const said = {
      currentBundle: running.status!.currentBundle,
      lastDeployment: running.status!.lastDeployment,
    };
    expect(deploymentRecord(running, deployment(), () => b1())).toEqual(said);
    expect(deploymentRecord(running, onB1, () => undefined)).toEqual(said);
    expect(deploymentRecord(environment(undefined, stored()), undefined, () => undefined)).toEqual({});
  });
});

describe('decideEnvironment: the database Secret and the backup claim', () => {
  const withDatabase = environment('staging', stored(), spec(database));
  const inputs = (references: Parameters<typeof decideEnvironment>[0]['references']) => ({
    environment: withDatabase,
    project: project(undefined, stored()),
    deployment: deployment(),
    references,
  });

  it('is not Ready while the Secret, one of its keys or the claim is missing', () => {
    expect(decideEnvironment(inputs({ databaseSecretKeys: null, backupClaimExists: true }))).toMatchObject({
      status: 'False',
      reason: 'DatabaseSecretNotFound',
      message: 'Secret db (spec.database.secretRef) does not exist; backups need it',
    });
    expect(
      decideEnvironment(inputs({ databaseSecretKeys: ['host', 'database'], backupClaimExists: true })),
    ).toMatchObject({
      status: 'False',
      reason: 'DatabaseSecretIncomplete',
      message: expect.stringMatching(/^Secret db has no username, password:/),
    });
    expect(
      decideEnvironment(
        inputs({
          databaseSecretKeys: ['host', 'database', 'username', 'password'],
          backupClaimExists: false,
        }),
      ),
    ).toMatchObject({ status: 'False', reason: 'BackupClaimNotFound' });
    expect(
      decideEnvironment(
        inputs({
          databaseSecretKeys: ['host', 'port', 'database', 'username', 'password'],
          backupClaimExists: true,
        }),
      ),
    ).toMatchObject({ status: 'True' });
  });
});
