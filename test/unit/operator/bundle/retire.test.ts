import { buildJobName } from '../../../../operator/names.ts';
import { describe, expect, it } from '@jest/globals';
import { retirement } from '../../../../operator/bundle/retire.ts';
import {
  NAMESPACE as NS,
  bundle,
  deployTo,
  spec,
  status,
  stored,
  type Modifier,
} from '../../../support/builders.ts';
import type { BundleObject } from '../../../../crds/index.ts';
import { finished, job } from '../builders.ts';

const built = (...modifiers: Array<Modifier<BundleObject>>) => bundle('b1', stored(), ...modifiers);

describe('retirement: what the operator stops watching once a bundle has finished', () => {
  it('lets go of the ended Jobs of a finished bundle', () => {
    const input = {
      bundle: built(spec({ deploy: deployTo('staging', true) }), status(finished('Ready'))),
      buildJob: job('b1-build', 'succeeded'),
      backupJob: job('b1-backup', 'failed'),
    };
    expect(retirement(input).map((j) => j.metadata?.name)).toEqual([buildJobName(NS, 'b1'), 'b1-backup']);
  });

  it('keeps watching a finished bundle whose Job still runs (a superseded build being stopped)', () => {
    const input = { bundle: built(status(finished('Superseded'))), buildJob: job('b1-build', 'running') };
    expect(retirement(input)).toEqual([]);
  });

  it('lets go of nothing while the bundle is on its way, or being deleted', () => {
    const ended = { buildJob: job('b1-build', 'succeeded') };
    const builtOnTheWay = built(spec({ deploy: deployTo() }), status({ phase: 'Built', conditions: [] }));
    expect(retirement({ bundle: builtOnTheWay, ...ended })).toEqual([]);
    const deleting = built(status(finished('Failed')));
    deleting.metadata.deletionTimestamp = '2026-03-01T10:00:00Z';
    expect(retirement({ bundle: deleting, ...ended })).toEqual([]);
  });

  it('counts a manual build that finished (Built, Ready, no deploy) as finished', () => {
    const input = { bundle: built(status(finished('Built'))), buildJob: job('b1-build', 'succeeded') };
    expect(retirement(input).map((j) => j.metadata?.name)).toEqual([buildJobName(NS, 'b1')]);
  });
});
