// What a bundle's commit statuses say at each point of its chain (operator/report/commit-statuses.ts).
import { describe, expect, it } from '@jest/globals';
import { desiredStatuses } from '../../../../operator/report/commit-statuses.ts';
import { bundle, deployTo, spec, status, stored } from '../../../support/builders.ts';
import { condition } from '../builders.ts';
import { withOutput } from '../../../../rules/container-output.ts';

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
    // Public on a public repository: the summary, never what the step printed.
    const printed = withOutput(
      'Container build exited with code 1: build step 2 exited with code 1',
      'API_KEY=s3cret',
    );
    expect(
      desiredStatuses(deploying('Failed', condition('Built', 'False', 'BuildFailed', printed)), URL)[0]
        ?.description,
    ).toBe(
      "Container build exited with code 1: build step 2 exited with code 1 (its output is in the build's logs)",
    );
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

  it("of a promotion's bundle are its rollout's alone (it builds nothing): on the promoted commit", () => {
    const promoted = (phase: string, ...conditions: ReturnType<typeof condition>[]) =>
      bundle(
        'p1',
        stored(),
        spec({
          source: { bundleRef: { name: 'b0' } },
          trigger: { type: 'Promotion', promotionRef: { name: 'release-1' } },
          deploy: deployTo('production'),
        }),
        status({ phase, conditions }),
      );
    const reused = condition('Built', 'True', 'Reused');
    expect(says(promoted('Deploying', reused))).toEqual(['slipway/deploy/production=pending']);
    expect(says(promoted('Ready', reused, condition('Deployed', 'True', 'Succeeded')))).toEqual([
      'slipway/deploy/production=success',
    ]);
    expect(
      says(promoted('Failed', reused, condition('Ready', 'False', 'RolloutFailed', 'progress deadline'))),
    ).toEqual(['slipway/deploy/production=failure']);
  });
});
