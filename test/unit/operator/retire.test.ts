import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { retirement } from '../../../operator/bundle/retire.ts';
import { bundle, deployTo, spec, status, stored, type Modifier } from '../../support/builders.ts';
import type { BundleObject } from '../../../crds/index.ts';
import { finished, job } from './builders.ts';

const pod = (name: string, phase: string): V1Pod => ({ metadata: { name }, status: { phase } });
const pods = (build: V1Pod[] = [], backup: V1Pod[] = []) => ({ build, backup, rollout: [] });
const built = (...modifiers: Array<Modifier<BundleObject>>) => bundle('b1', stored(), ...modifiers);

describe('retirement: what the operator stops watching once a bundle has finished', () => {
  it('lets go of the ended Jobs and pods of a finished bundle, pods first', () => {
    const input = {
      bundle: built(spec({ deploy: deployTo('staging', true) }), status(finished('Ready'))),
      buildJob: job('b1-build', 'succeeded'),
      backupJob: job('b1-backup', 'failed'),
      pods: pods(
        [pod('b1-build-x', 'Succeeded')],
        [pod('b1-backup-a', 'Failed'), pod('b1-backup-b', 'Succeeded')],
      ),
    };
    expect(retirement(input)).toEqual({
      pods: ['b1-build-x', 'b1-backup-a', 'b1-backup-b'],
      jobs: ['b1-build', 'b1-backup'],
    });
  });

  it('keeps watching a finished bundle whose Job or pod still runs (a superseded build being stopped)', () => {
    const input = {
      bundle: built(status(finished('Superseded'))),
      buildJob: job('b1-build', 'running'),
      pods: pods([pod('b1-build-x', 'Running')]),
    };
    expect(retirement(input)).toEqual({ pods: [], jobs: [] });
  });

  it('lets go of nothing while the bundle is on its way, or being deleted', () => {
    const ended = { buildJob: job('b1-build', 'succeeded'), pods: pods([pod('b1-build-x', 'Succeeded')]) };
    const builtOnTheWay = built(spec({ deploy: deployTo() }), status({ phase: 'Built', conditions: [] }));
    expect(retirement({ bundle: builtOnTheWay, ...ended })).toEqual({ pods: [], jobs: [] });
    const deleting = built(status(finished('Failed')));
    deleting.metadata.deletionTimestamp = '2026-03-01T10:00:00Z';
    expect(retirement({ bundle: deleting, ...ended })).toEqual({ pods: [], jobs: [] });
  });

  it('counts a manual build that finished (Built, Ready, no deploy) as finished', () => {
    const input = { bundle: built(status(finished('Built'))), buildJob: job('b1-build', 'succeeded') };
    expect(retirement(input)).toEqual({ pods: [], jobs: ['b1-build'] });
  });
});
