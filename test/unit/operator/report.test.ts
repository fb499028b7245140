// What a bundle's commit statuses say at each point of its chain, and when a provider call is
// tried again (operator/report/desired.ts, retry.ts).
import { describe, expect, it } from '@jest/globals';
import { desiredStatuses } from '../../../operator/report/desired.ts';
import { retryable, retryDelayMs } from '../../../operator/outbound/retry.ts';
import { bundle, deployTo, spec, status, stored } from '../../support/builders.ts';
import { condition } from './builders.ts';

const URL = 'https://hooks.example.com/bundles/ns/b1/t';
const deploying = (phase: string, ...conditions: ReturnType<typeof condition>[]) =>
  bundle(
    'b1',
    stored(),
    spec({ deploy: deployTo('staging') }),
    status({ phase, startedAt: '2026-11-26T05:00:00Z', conditions }),
  );
const says = (b: ReturnType<typeof bundle>) => desiredStatuses(b, URL).map((s) => `${s.context}=${s.state}`);

describe('the commit statuses of a bundle', () => {
  it('follow the chain: queued and building are pending, then built, then the deployment', () => {
    expect(says(deploying('Queued'))).toEqual(['slipway/build/staging=pending']);
    expect(says(deploying('Building'))).toEqual(['slipway/build/staging=pending']);
    const built = condition('Built', 'True', 'Succeeded');
    expect(says(deploying('Deploying', built))).toEqual([
      'slipway/build/staging=success',
      'slipway/deploy/staging=pending',
    ]);
    expect(says(deploying('Ready', built, condition('Deployed', 'True', 'Succeeded')))).toEqual([
      'slipway/build/staging=success',
      'slipway/deploy/staging=success',
    ]);
    expect(desiredStatuses(deploying('Building'), URL)[0]).toMatchObject({ targetUrl: URL });
  });

  it('fail where the chain failed, also before any Job, and say error when superseded', () => {
    expect(
      says(deploying('Failed', condition('Built', 'False', 'InvalidBuildSteps', 'buildSteps.commands …'))),
    ).toEqual(['slipway/build/staging=failure']);
    const built = condition('Built', 'True', 'Succeeded');
    expect(
      says(deploying('Failed', built, condition('Ready', 'False', 'RolloutFailed', 'progress deadline'))),
    ).toEqual(['slipway/build/staging=success', 'slipway/deploy/staging=failure']);
    expect(
      says(deploying('Superseded', condition('Ready', 'False', 'Superseded', 'bundle b2 is newer'))),
    ).toEqual(['slipway/build/staging=error']);
    expect(
      desiredStatuses(
        deploying('Failed', condition('Built', 'False', 'BuildFailed', 'step 2 exited 1')),
        URL,
      )[0]?.description,
    ).toBe('step 2 exited 1');
  });

  it('are none for a bundle without a commit (a rollback, an upload that names none) or not yet looked at', () => {
    const rollback = bundle(
      'r1',
      stored(),
      spec({ source: { bundleRef: { name: 'b0' } } }),
      status({ phase: 'Ready' }),
    );
    expect(says(rollback)).toEqual([]);
    const upload = bundle(
      'u1',
      stored(),
      spec({ source: { archive: { url: 'http://gw/a.tgz', sha256: 'f'.repeat(64), sizeBytes: 1 } } }),
      status({ phase: 'Building' }),
    );
    expect(says(upload)).toEqual([]);
    expect(says(bundle('b0', stored()))).toEqual([]);
  });
});

describe('a provider call', () => {
  const answer = (status: number, headers: Record<string, string> = {}) => ({
    status,
    headers: { get: (name: string) => headers[name] ?? null },
  });
  const NOW = Date.parse('2026-11-26T05:00:00Z');

  it('is tried again on 408, 429, 5xx and a rate-limited 403 only', () => {
    expect([408, 429, 500, 502].map((s) => retryable(answer(s)))).toEqual([true, true, true, true]);
    expect([400, 401, 404, 422].map((s) => retryable(answer(s)))).toEqual([false, false, false, false]);
    expect(retryable(answer(403))).toBe(false);
    expect(retryable(answer(403, { 'x-ratelimit-remaining': '0' }))).toBe(true);
  });

  it('waits what the provider asks (Retry-After in seconds or as a date, a rate limit reset), else backs off', () => {
    expect(retryDelayMs(answer(429, { 'retry-after': '3' }), 1, NOW)).toBe(3000);
    expect(retryDelayMs(answer(503, { 'retry-after': new Date(NOW + 7000).toUTCString() }), 1, NOW)).toBe(
      7000,
    );
    expect(
      retryDelayMs(
        answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 60) }),
        1,
        NOW,
      ),
    ).toBe(60_000);
    expect(retryDelayMs(answer(429, { 'retry-after': '86400' }), 1, NOW)).toBe(15 * 60_000);
    expect([1, 2, 3].map((a) => retryDelayMs(answer(500), a, NOW))).toEqual([1000, 2000, 4000]);
    expect(retryDelayMs(undefined, 20, NOW)).toBe(5 * 60_000);
  });
});
