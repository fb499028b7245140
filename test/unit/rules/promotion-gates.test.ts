// A promotion's gates as the Promotion's status shows them: soak on the source environment, open
// incidents and maintenance on the named components, approvals (each user once, not the
// requester's own with separateApprover), and the target Environment's gates as a minimum.
import { describe, expect, it } from '@jest/globals';
import type { PromotionGates } from '../../../crds/index.ts';
import { noticeFromObject, type Notice } from '../../../rules/notice-timeline.ts';
import { effectiveGates, evaluateGates, type GateFacts } from '../../../rules/promotion-gates.ts';
import { spec, statusNotice, stored } from '../../support/builders.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const minutesAgo = (m: number) => NOW.getTime() - m * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function facts(gates: PromotionGates, more: Partial<GateFacts> = {}): GateFacts {
  return {
    gates,
    from: 'staging',
    bundle: 'site-abc',
    readyAt: minutesAgo(45),
    replacedAt: undefined,
    replacedBy: undefined,
    notices: [],
    requestedBy: 'alice',
    approvers: [],
    now: NOW,
    ...more,
  };
}

const incident = (name: string, components: string[], state = 'identified'): Notice =>
  noticeFromObject(
    statusNotice(
      name,
      stored(),
      spec({
        id: 7,
        componentRefs: components.map((c) => ({ name: c })),
        updates: [
          { state: 'investigating', content: 'Looking.', at: iso(minutesAgo(30)) },
          { state, content: 'Found it.', at: iso(minutesAgo(10)) },
        ],
      }),
    ),
  )!;

const maintenance = (name: string, beginsIn: number, endsIn: number): Notice =>
  noticeFromObject(
    statusNotice(
      name,
      stored(),
      spec({
        id: 8,
        type: 'planned',
        subject: 'Database upgrade',
        componentRefs: [{ name: 'api' }],
        beginsAt: iso(NOW.getTime() + beginsIn * 60_000),
        endsAt: iso(NOW.getTime() + endsIn * 60_000),
        updates: [],
      }),
    ),
  )!;

describe('promotion gates', () => {
  it('soak: met after soakMinutes Ready on the source; otherwise how long to go, and a wake-up then', () => {
    expect(evaluateGates(facts({ soakMinutes: 30 })).gates).toEqual([
      { name: 'soakMinutes', met: true, message: 'ran 45 min on staging (soakMinutes 30)' },
    ]);
    const early = evaluateGates(facts({ soakMinutes: 60 }));
    expect(early.gates[0]).toEqual({
      name: 'soakMinutes',
      met: false,
      message: 'has run 45 min on staging: 15 min to go (soakMinutes 60)',
    });
    expect(early.wakeAt).toBe(minutesAgo(45) + 60 * 60_000);
    const replaced = evaluateGates(
      facts({ soakMinutes: 30 }, { replacedAt: minutesAgo(40), replacedBy: 'site-def' }),
    );
    expect(replaced.gates[0]!.message).toBe(
      'ran only 5 min on staging before bundle site-def replaced it (soakMinutes 30)',
    );
    expect(replaced.wakeAt).toBeUndefined();
    expect(evaluateGates(facts({ soakMinutes: 1 }, { readyAt: undefined })).gates[0]).toMatchObject({
      met: false,
      message: 'bundle site-abc has not run on staging, Ready',
    });
  });

  it('noOpenIncident: an unplanned notice open on a named component holds it, saying which and in what state', () => {
    const gates = { noOpenIncident: true, components: [{ name: 'api' }, { name: 'web' }] };
    const open = evaluateGates(facts(gates, { notices: [incident('db-latency', ['api', 'db'])] }));
    expect(open.gates).toEqual([
      {
        name: 'noOpenIncident',
        met: false,
        message: 'StatusNotice db-latency (identified) is open on component api',
      },
    ]);
    // Elsewhere, or resolved: it holds.
    expect(
      evaluateGates(
        facts(gates, { notices: [incident('cdn', ['cdn']), incident('old', ['api'], 'resolved')] }),
      ).gates[0],
    ).toEqual({ name: 'noOpenIncident', met: true, message: 'no incident is open on components api, web' });
    // No components named: every notice of the namespace counts.
    expect(
      evaluateGates(facts({ noOpenIncident: true }, { notices: [incident('cdn', ['cdn'])] })).gates[0],
    ).toEqual({
      name: 'noOpenIncident',
      met: false,
      message: 'StatusNotice cdn (identified) is open on component cdn',
    });
  });

  it('outsideMaintenance: a window underway holds it; one to come does not, but wakes it when it starts', () => {
    const gates = { outsideMaintenance: true, components: [{ name: 'api' }] };
    const now = evaluateGates(facts(gates, { notices: [maintenance('db-upgrade', -10, 20)] }));
    expect(now.gates[0]).toEqual({
      name: 'outsideMaintenance',
      met: false,
      message: 'StatusNotice db-upgrade (scheduled) is in its window on component api',
    });
    expect(now.wakeAt).toBe(NOW.getTime() + 20 * 60_000);
    const later = evaluateGates(facts(gates, { notices: [maintenance('db-upgrade', 30, 60)] }));
    expect(later.gates[0]).toMatchObject({
      met: true,
      message: 'no maintenance is underway on component api',
    });
    expect(later.wakeAt).toBe(NOW.getTime() + 30 * 60_000);
  });

  it('approvals: distinct users; with separateApprover the requester’s own does not count', () => {
    expect(evaluateGates(facts({ approvals: 2 }, { approvers: ['bob'] })).gates[0]).toEqual({
      name: 'approvals',
      met: false,
      message: '1 of 2 approvals: bob: kubectl slipway promotion approve',
    });
    const own = evaluateGates(facts({ approvals: 1, separateApprover: true }, { approvers: ['alice'] }));
    expect(own.gates[0]).toEqual({
      name: 'approvals',
      met: false,
      message:
        "0 of 1 approval (alice's own does not count: separateApprover): kubectl slipway promotion approve",
    });
    expect(own.counted).toEqual([]);
    const two = evaluateGates(facts({ approvals: 2 }, { approvers: ['bob', 'alice', 'bob'] }));
    expect(two.gates[0]).toEqual({ name: 'approvals', met: true, message: 'approved by bob, alice' });
    expect(two.counted).toEqual(['bob', 'alice']);
  });

  it("the target Environment's gates are a minimum: the larger numbers, every true, both lists of components", () => {
    expect(
      effectiveGates(
        { soakMinutes: 10, approvals: 2, components: [{ name: 'web' }] },
        {
          soakMinutes: 30,
          approvals: 1,
          noOpenIncident: true,
          components: [{ name: 'api' }, { name: 'web' }],
        },
      ),
    ).toEqual({
      soakMinutes: 30,
      approvals: 2,
      noOpenIncident: true,
      components: [{ name: 'api' }, { name: 'web' }],
    });
    // The Environment watches every component: a Promotion naming one does not narrow it.
    expect(
      effectiveGates({ noOpenIncident: true, components: [{ name: 'web' }] }, { noOpenIncident: true }),
    ).toEqual({ noOpenIncident: true });
    expect(
      effectiveGates({ outsideMaintenance: true }, { noOpenIncident: true, components: [{ name: 'api' }] }),
    ).toEqual({
      noOpenIncident: true,
      outsideMaintenance: true,
    });
    expect(effectiveGates(undefined, undefined)).toEqual({});
    expect(evaluateGates(facts({})).gates).toEqual([]);
  });
});
