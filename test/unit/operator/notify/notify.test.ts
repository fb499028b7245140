// What a finished bundle tells its notification receivers, and each receiver's request
// (operator/notify/bundle-ending.ts, types/).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { bundleEnding as happened } from '../../../../operator/notify/bundle-ending.ts';
import type { NotificationFacts } from '../../../../operator/notify/facts.ts';
import { notificationRequest } from '../../../../operator/notify/types/index.ts';
import { bundle, deployTo, spec, status, stored } from '../../../support/builders.ts';
import { condition } from '../builders.ts';

const FINISHED = '2026-11-26T06:00:00Z';
const ended = (
  phase: string,
  fields: Record<string, unknown>,
  ...conditions: ReturnType<typeof condition>[]
) => bundle('b1', stored(), spec(fields), status({ phase, finishedAt: FINISHED, conditions }));
const built = condition('Built', 'True', 'Succeeded');

describe('what a bundle that ended tells its receivers', () => {
  it('names how it ended: built, deployed, rolled back', () => {
    expect(happened(ended('Built', {}, built))).toEqual({ event: 'Built', message: '', at: FINISHED });
    const deployed = ended(
      'Ready',
      { deploy: deployTo('staging') },
      built,
      condition('Deployed', 'True', 'Succeeded'),
      condition('Ready', 'True', 'Deployed', 'deployed to staging\nmore'),
    );
    expect(happened(deployed)).toEqual({
      event: 'Deployed',
      environment: 'staging',
      message: 'deployed to staging',
      at: FINISHED,
    });
    const rollback = ended('Ready', {
      deploy: deployTo('staging'),
      trigger: { type: 'Rollback' },
      source: { bundleRef: { name: 'b0' } },
    });
    expect(happened(rollback)?.event).toBe('RolledBack');
  });

  it('names the step that failed, and says nothing while running or when superseded', () => {
    const failed = (...conditions: ReturnType<typeof condition>[]) =>
      happened(ended('Failed', { deploy: deployTo('staging') }, ...conditions))?.event;
    expect(failed(condition('Built', 'False', 'InvalidBuildSteps'))).toBe('BuildFailed');
    expect(failed()).toBe('BuildFailed');
    expect(failed(built, condition('BackedUp', 'False', 'BackupFailed'))).toBe('BackupFailed');
    expect(failed(built, condition('Deployed', 'False', 'RolloutFailed'))).toBe('RolloutFailed');
    expect(failed(built, condition('Ready', 'False', 'EnvironmentNotReady'))).toBe('RolloutFailed');
    expect(happened(ended('Superseded', {}))).toBeUndefined();
    expect(happened(bundle('b2', stored(), status({ phase: 'Building' })))).toBeUndefined();
  });
});

const facts: NotificationFacts = {
  event: 'RolloutFailed',
  severity: 'error',
  project: 'shop',
  namespace: 'team-a',
  bundle: 'shop-1',
  commit: 'a'.repeat(40),
  branch: 'main',
  environment: 'production',
  message: 'the rollout <failed> & stopped',
  time: FINISHED,
  url: 'https://hooks.example.com/bundles/team-a/shop-1/sig',
};

describe("each receiver's request", () => {
  it('generic: the facts; generic-hmac: the same, signed like Flux', () => {
    const plain = notificationRequest({ type: 'generic', url: 'https://r.example/x' }, facts);
    expect(plain).toMatchObject({ method: 'POST', url: 'https://r.example/x' });
    expect(JSON.parse(plain.body as string)).toEqual(facts);
    expect(plain.headers['x-signature']).toBeUndefined();
    const signed = notificationRequest(
      { type: 'generic-hmac', url: 'https://r.example/x', hmacKey: 'k' },
      facts,
    );
    expect(signed.body).toBe(plain.body);
    expect(signed.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', 'k')
        .update(signed.body as string)
        .digest('hex')}`,
    );
  });

  it("slack: a linked headline with Slack's escaping; msteams: an Adaptive Card", () => {
    const slack = JSON.parse(notificationRequest({ type: 'slack', url: 'https://s' }, facts).body as string);
    expect(slack.text).toBe(`<${facts.url}|shop: the rollout of shop-1 to production failed>`);
    expect(slack.attachments[0]).toMatchObject({
      color: 'danger',
      text: 'the rollout &lt;failed&gt; &amp; stopped',
      ts: Date.parse(FINISHED) / 1000,
    });
    const teams = JSON.parse(
      notificationRequest({ type: 'msteams', url: 'https://t' }, facts).body as string,
    );
    expect(teams.attachments[0].content.body[0]).toMatchObject({ color: 'Attention' });
    expect(teams.attachments[0].content.body[2].facts).toContainEqual({
      title: 'Commit',
      value: 'a'.repeat(12),
    });
  });

  it('discord: one embed, linked, red for a failure, facts inline, and no mention ever parsed', () => {
    const discord = notificationRequest(
      { type: 'discord', url: 'https://discord.com/api/webhooks/1/t' },
      facts,
    );
    expect(discord).toMatchObject({ method: 'POST', url: 'https://discord.com/api/webhooks/1/t' });
    expect(discord.headers['content-type']).toBe('application/json');
    const body = JSON.parse(discord.body as string);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]).toMatchObject({
      title: 'shop: the rollout of shop-1 to production failed',
      url: facts.url,
      description: 'the rollout <failed> & stopped',
      color: 0xd40e0d,
      timestamp: FINISHED,
    });
    expect(body.embeds[0].fields).toContainEqual({ name: 'Commit', value: 'a'.repeat(12), inline: true });
    const built = JSON.parse(
      notificationRequest(
        { type: 'discord', url: 'https://d' },
        { ...facts, event: 'Built', message: 'x'.repeat(5000) },
      ).body as string,
    );
    expect(built.embeds[0].color).toBe(0x2eb886);
    expect(built.embeds[0].description).toHaveLength(4096);
  });
});
