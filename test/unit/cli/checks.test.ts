// What `kubectl slipway check` and `version` conclude from the namespace's Projects.
import { describe, expect, it } from '@jest/globals';
import type { ProjectObject } from '../../../crds/index.ts';
import { operatorLooking } from '../../../cli/checks.ts';
import { operatorVersions } from '../../../cli/commands/version.ts';

const project = (
  name: string,
  generation: number,
  status?: { observedGeneration: number; operatorVersion?: string },
) =>
  ({
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Project',
    metadata: { name, namespace: 'shop', generation },
    spec: {},
    ...(status ? { status } : {}),
  }) as unknown as ProjectObject;

describe('the operator, as the Projects show it', () => {
  it('looks at the namespace when every Project is current and names a version', () => {
    expect(
      operatorLooking([project('a', 2, { observedGeneration: 2, operatorVersion: '0.1.0' })], 'shop'),
    ).toEqual({ check: 'operator', state: 'ok', message: '0.1.0 looks at the 1 project(s) of shop' });
  });

  it('fails naming each Project it has not looked at, or not at its generation', () => {
    const result = operatorLooking(
      [
        project('a', 2, { observedGeneration: 2, operatorVersion: '0.1.0' }),
        project('b', 3, { observedGeneration: 2, operatorVersion: '0.1.0' }),
        project('c', 1),
      ],
      'shop',
    );
    expect(result.state).toBe('fail');
    expect(result.message).toBe(
      'has not looked at project b (generation 3), project c (generation 1): is it running, watching namespace shop, and as new as this CLI?',
    );
  });

  it('cannot tell without a Project', () => {
    expect(operatorLooking([], 'shop').state).toBe('warn');
  });

  it('groups projects by the version that looked at them (shards of two versions)', () => {
    expect(
      operatorVersions([
        project('web', 1, { observedGeneration: 1, operatorVersion: '0.2.0' }),
        project('api', 1, { observedGeneration: 1, operatorVersion: '0.1.0' }),
        project('blog', 1, { observedGeneration: 1, operatorVersion: '0.2.0' }),
        project('new', 1),
      ]),
    ).toEqual([
      { version: '0.2.0', projects: ['blog', 'web'] },
      { version: '0.1.0', projects: ['api'] },
    ]);
  });
});
