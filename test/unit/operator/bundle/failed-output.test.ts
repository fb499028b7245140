import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { failedBuildStep } from '../../../../operator/bundle/buildkit-output.ts';
import { failedContainerOutput } from '../../../../operator/bundle/workload-state.ts';

const pod = (created: string, statuses: V1Pod['status']): V1Pod => ({
  metadata: { name: `p-${created}`, creationTimestamp: new Date(created) },
  status: statuses,
});
const failed = (name: string, message: string, exitCode = 1, reason = 'Error') => ({
  name,
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode, reason, message } },
});

describe('the output of a failed Job container', () => {
  it('names the failed container of the newest pod and keeps its last lines', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const pods = [
      pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('dump', 'older attempt')] }),
      pod('2026-01-01T00:01:00Z', {
        initContainerStatuses: [failed('fetch', `${lines}\n`)],
        containerStatuses: [],
      }),
    ];
    expect(failedContainerOutput(pods)).toBe(
      'Container fetch exited with code 1; its output ends: line 15 | line 16 | line 17 | line 18 | line 19 | line 20',
    );
  });

  it('says how a container ended when it left no output, and bounds long output', () => {
    expect(
      failedContainerOutput([
        pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', '', 137, 'OOMKilled')] }),
      ]),
    ).toBe('Container build exited with code 137 (OOMKilled)');
    const long = failedContainerOutput([
      pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', 'x'.repeat(5000))] }),
    ]);
    expect(long!.length).toBeLessThan(900);
  });

  it('is undefined when every container succeeded or none ran', () => {
    expect(
      failedContainerOutput([pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', 'ok', 0)] })]),
    ).toBeUndefined();
    expect(failedContainerOutput([pod('2026-01-01T00:00:00Z', {})])).toBeUndefined();
  });
});

describe('the output of a failed build step', () => {
  // The build container's termination message when `composer install` failed on the real node:
  // the last 2048 bytes of buildctl's output, as the kubelet keeps them.
  const fixture = readFileSync(new URL('../fixtures/buildkit-step-failure.txt', import.meta.url), 'utf8');

  it("quotes the step's own last lines, not buildctl's Dockerfile excerpt, and names the step", () => {
    const step = failedBuildStep(fixture);
    expect(step).toMatchObject({ step: 1, exitCode: 2 });
    expect(step!.lines).toContain(
      '- Root composer.json requires example/missing, it could not be found in any version, there may be a typo in the package name.',
    );
    expect(step!.lines.join('\n')).not.toMatch(/Dockerfile|SLIPWAY_STEP|^\d+\.\d+ /m);
    const message = failedContainerOutput([
      pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', fixture)] }),
    ]);
    expect(message).toMatch(
      /^Container build exited with code 1: build step 1 exited with code 2; its output ends: .*Root composer\.json requires example\/missing.* \| Running update with --no-dev does not mean require-dev is ignored/,
    );
    expect(message!.length).toBeLessThan(1300);
  });

  it('names an install step by its own number', () => {
    const install = fixture.replaceAll('SLIPWAY_STEP_1', 'SLIPWAY_INSTALL_1');
    expect(failedBuildStep(install)).toMatchObject({ phase: 'install', step: 1, exitCode: 2 });
    expect(failedBuildStep(fixture)).toMatchObject({ phase: 'build' });
    expect(
      failedContainerOutput([pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', install)] })]),
    ).toMatch(
      /^Container build exited with code 1: install step 1 exited with code 2; its output ends: .*Root composer\.json/,
    );
  });

  it('leaves other build failures to their last lines', () => {
    const output =
      '#4 ERROR: registry.test/no-such-image:1: not found\n------\n > [1/2] FROM registry.test/no-such-image:1:\n------\nerror: failed to solve: registry.test/no-such-image:1: not found\n';
    expect(failedBuildStep(output)).toBeUndefined();
    expect(
      failedContainerOutput([pod('2026-01-01T00:00:00Z', { containerStatuses: [failed('build', output)] })]),
    ).toMatch(/ \| error: failed to solve: registry.test\/no-such-image:1: not found$/);
  });
});
