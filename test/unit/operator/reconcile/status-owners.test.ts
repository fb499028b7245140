// One writer per status (operator/reconcile/status-owners.ts): the status writer refuses a write
// that changes what its writer does not own, and each writer is claimed only from its folders.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import {
  STATUS_OWNERS,
  WRITER_FOLDERS,
  ownerProblem,
  type StatusWriterName,
} from '../../../../operator/reconcile/status-owners.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ready = [{ type: 'Ready' }];

describe('the writers of each status', () => {
  it("lets a kind's controller write its status, and each delivery sink its receipts and health", () => {
    expect(ownerProblem('Bundle', 'bundle', {}, { phase: 'Built' }, ready)).toBeUndefined();
    expect(ownerProblem('Bundle', 'report', {}, { reported: [] }, [])).toBeUndefined();
    // Each sink its own: notifications do not write what the provider took.
    expect(ownerProblem('Bundle', 'notify', {}, { reported: [] }, [])).toMatch(
      /written by report, not by notify/,
    );
    expect(ownerProblem('Project', 'notify', {}, {}, [{ type: 'Notified' }])).toBeUndefined();
    expect(
      ownerProblem('StatusPage', 'subscribers', {}, { webhooks: [] }, [{ type: 'WebhooksDelivered' }]),
    ).toBeUndefined();
  });

  it('refuses a second writer of a field or condition, naming its owner', () => {
    expect(ownerProblem('Bundle', 'bundle', {}, { notified: [] }, [])).toBe(
      'Bundle status.notified is written by notify, not by bundle (operator/reconcile/status-owners.ts)',
    );
    expect(ownerProblem('Bundle', 'report', {}, { reported: [] }, ready)).toMatch(
      /condition Ready is written by bundle/,
    );
    expect(ownerProblem('Project', 'project', {}, {}, [{ type: 'Reported' }])).toMatch(/written by report/);
    expect(ownerProblem('StatusPage', 'status-page', {}, { webhooks: null }, [])).toMatch(/status.webhooks/);
  });

  it("shares a component's announced record: the controller makes a change, the engine adds who took it", () => {
    const record = { version: 'degraded_performance', previous: 'operational', at: 'T1', deliveredTo: ['a'] };
    const before = { announced: record };
    const took = { announced: { ...record, deliveredTo: ['a', 'b'] } };
    expect(ownerProblem('StatusComponent', 'subscribers', before, took, [])).toBeUndefined();
    expect(ownerProblem('StatusComponent', 'status-page', before, took, [])).toMatch(
      /status.announced.deliveredTo is written by subscribers/,
    );
    const next = {
      announced: { version: 'operational', previous: record.version, at: 'T2', deliveredTo: [] },
    };
    expect(ownerProblem('StatusComponent', 'status-page', before, next, ready)).toBeUndefined();
    expect(ownerProblem('StatusComponent', 'subscribers', before, next, [])).toMatch(
      /announced.version is written by status-page/,
    );
  });

  it('names an owner for every kind, and each writer is claimed only from its own folders', () => {
    expect(Object.keys(STATUS_OWNERS).sort()).toEqual([
      'Bundle',
      'Environment',
      'Preview',
      'Project',
      'Promotion',
      'StatusComponent',
      'StatusNotice',
      'StatusPage',
      'Webhook',
    ]);
    const claims: Array<[string, StatusWriterName]> = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const [, writer] of text.matchAll(/\bwriter: '([a-z-]+)'/g))
            claims.push([relative(ROOT, path), writer as StatusWriterName]);
          // writeReady writes as the kind's own controller.
          for (const [, kind] of text.matchAll(/\.writeReady\(\s*'(\w+)'/g))
            claims.push([relative(ROOT, path), STATUS_OWNERS[kind as keyof typeof STATUS_OWNERS].owner]);
        }
      }
    };
    walk(join(ROOT, 'operator'));
    expect(claims.length).toBeGreaterThanOrEqual(10);
    const strays = claims.filter(
      ([file, writer]) => !(WRITER_FOLDERS[writer] ?? []).some((folder) => file.startsWith(folder)),
    );
    expect(strays).toEqual([]);
  });
});
