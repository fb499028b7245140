import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { failedContainerOutput } from '../../../operator/bundle/state.ts';

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
      'Container fetch exited with code 1: line 15 | line 16 | line 17 | line 18 | line 19 | line 20',
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
