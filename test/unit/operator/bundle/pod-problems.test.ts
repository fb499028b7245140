import { describe, expect, it } from '@jest/globals';
import type { V1ContainerStatus, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { podProblem } from '../../../../operator/bundle/pod-problems.ts';
import { at } from '../../../support/builders.ts';

/** A pod as the API server shows it: status written by the scheduler and the kubelet. */
function pod(
  name: string,
  status: { conditions?: V1PodCondition[]; containers?: V1ContainerStatus[]; phase?: string } = {},
  created = 0,
): V1Pod {
  return {
    metadata: { name, creationTimestamp: new Date(at(created)) },
    status: {
      phase: status.phase ?? 'Pending',
      conditions: status.conditions,
      containerStatuses: status.containers,
    },
  };
}
const unschedulable = (message: string): V1PodCondition => ({
  type: 'PodScheduled',
  status: 'False',
  reason: 'Unschedulable',
  message,
});
const waiting = (
  reason: string,
  message?: string,
  extra: Partial<V1ContainerStatus> = {},
): V1ContainerStatus => ({
  name: 'build',
  image: 'registry.test/tools:r2',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { waiting: { reason, message } },
  ...extra,
});

describe('what keeps a bundle pod from running', () => {
  it('quotes the scheduler, and names a missing volume claim', () => {
    expect(
      podProblem([
        pod('p', {
          conditions: [
            unschedulable("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."),
          ],
        }),
      ]),
    ).toEqual({
      reason: 'Unschedulable',
      message:
        "pod p cannot be scheduled: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
    });
    expect(
      podProblem([
        pod('p', {
          conditions: [
            unschedulable(
              '0/1 nodes are available: persistentvolumeclaim "backups" not found. preemption: 0/1 nodes are available',
            ),
          ],
        }),
      ]),
    ).toEqual({
      reason: 'ClaimNotFound',
      message: 'pod p cannot be scheduled: persistentvolumeclaim "backups" not found',
    });
  });

  it('names image pulls that fail and containers that cannot be created', () => {
    expect(
      podProblem([pod('p', { containers: [waiting('ImagePullBackOff', 'Back-off pulling image "x"')] })]),
    ).toEqual({
      reason: 'ImagePullFailed',
      message:
        'container build of pod p cannot pull image registry.test/tools:r2 (ImagePullBackOff): Back-off pulling image "x"',
    });
    expect(
      podProblem([
        pod('p', {
          containers: [waiting('CreateContainerConfigError', "couldn't find key password in Secret team/db")],
        }),
      ]),
    ).toEqual({
      reason: 'ContainerConfigError',
      message:
        "container build of pod p cannot start (CreateContainerConfigError): couldn't find key password in Secret team/db",
    });
  });

  it('counts the restarts of a crashing container and quotes its output only when asked', () => {
    const crashing = pod('p', {
      phase: 'Running',
      containers: [
        waiting('CrashLoopBackOff', 'back-off 20s', {
          restartCount: 3,
          lastState: { terminated: { exitCode: 3, reason: 'Error', message: 'password=hunter2\n' } },
        }),
      ],
    });
    expect(podProblem([crashing])).toEqual({
      reason: 'CrashLoop',
      message: 'container build of pod p keeps crashing (3 restarts; last exit code 3 (Error))',
    });
    expect(podProblem([crashing], { withOutput: true })?.message).toContain(': password=hunter2');
  });

  it('still calls it a crash loop while the container runs for a moment between back-offs', () => {
    const between = pod('p', {
      phase: 'Running',
      containers: [
        {
          ...waiting('x'),
          state: { running: {} },
          restartCount: 2,
          lastState: { terminated: { exitCode: 1 } },
        },
      ],
    });
    expect(podProblem([between])?.reason).toBe('CrashLoop');
    const recovered = { ...between.status!.containerStatuses![0]!, ready: true };
    expect(
      podProblem([{ ...between, status: { ...between.status, containerStatuses: [recovered] } }]),
    ).toBeUndefined();
  });

  it('looks at the newest pod that is still meant to run, and finds nothing in a healthy one', () => {
    const old = pod('old', { conditions: [unschedulable('no nodes')] }, 0);
    const finished = pod('done', { phase: 'Failed', containers: [waiting('ImagePullBackOff')] }, 10);
    const running = pod(
      'new',
      { phase: 'Running', containers: [{ ...waiting('x'), state: { running: {} } }] },
      20,
    );
    expect(podProblem([old, finished, running])?.message).toContain('pod old');
    expect(podProblem([running, finished])).toBeUndefined();
    expect(podProblem([])).toBeUndefined();
  });

  it('keeps a long message short', () => {
    const problem = podProblem([pod('p', { conditions: [unschedulable('x'.repeat(5000))] })]);
    expect(problem!.message.length).toBeLessThan(500);
  });
});
