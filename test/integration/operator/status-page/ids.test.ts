// The operator's status controllers on a real API server: ids assigned once and never reused,
// surviving a restart; reference problems shown as conditions.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { StatusComponentObject, StatusNoticeObject } from '../../../../crds/index.ts';
import { StatusWriter } from '../../../../operator/reconcile/status-writer.ts';
import { EventRecorder } from '../../../../lib/events.ts';
import { kubeClients, slipwayApi } from '../../../../lib/kube.ts';
import { logger } from '../../../../lib/log.ts';
import { createInformers } from '../../../../operator/informers.ts';
import { PageEntryReconciler } from '../../../../operator/status-page/controller.ts';
import { PageIds } from '../../../../operator/status-page/page-ids.ts';
import { watchStatusPageEntries } from '../../../../operator/status-page/watches.ts';
import { Controller } from '../../../../operator/reconcile/controller.ts';
import * as build from '../../../support/builders.ts';
import {
  createNamespace,
  kubectl,
  controllerKubeConfig,
  waitFor,
  kubectlApply,
} from '../../../support/cluster.ts';

// The status writer is Slipway's own: it acts as Slipway's identity (the slipway-writers policy).
const kc = controllerKubeConfig();
const clients = kubeClients(kc);
const api = slipwayApi(kc);
const log = logger.child({ test: 'status-ids' });
let ns: { name: string; remove: () => Promise<void> };
let running: { stop: () => Promise<void> } | undefined;

/** Starts the two status controllers as the operator runs them. */
async function startControllers() {
  // The operator's shared caches; these controllers read only the three status kinds'.
  const all = createInformers(kc, ns.name, log);
  const informers = { pages: all.statusPages, components: all.statusComponents, notices: all.statusNotices };
  const events = new EventRecorder(clients.events, 'slipway.dev/operator', 'test', log);
  const now = () => new Date();
  const status = new StatusWriter({ slipway: api, events, now });
  const ctx = { informers: all, slipway: api, events, status, log, now };
  const ids = new PageIds(api);
  const components = new Controller(
    'statuscomponent',
    new PageEntryReconciler('StatusComponent', ctx, ids),
    2,
    log,
  );
  const notices = new Controller('statusnotice', new PageEntryReconciler('StatusNotice', ctx, ids), 2, log);
  watchStatusPageEntries(all, components, notices);
  await Promise.all([informers.pages.start(), informers.components.start(), informers.notices.start()]);
  components.start();
  notices.start();
  for (const c of informers.components.list()) components.enqueue(c.metadata.namespace, c.metadata.name);
  for (const n of informers.notices.list()) notices.enqueue(n.metadata.namespace, n.metadata.name);
  running = {
    stop: async () => {
      await Promise.all([components.stop(), notices.stop()]);
      await Promise.all([informers.pages.stop(), informers.components.stop(), informers.notices.stop()]);
    },
  };
}

const apply = (...objects: unknown[]) => kubectlApply(objects);

const component = (name: string) => api.get<StatusComponentObject>('StatusComponent', ns.name, name);
const ready = (o: { status?: { conditions?: Array<{ type: string; status: string; reason: string }> } }) =>
  o.status?.conditions?.find((c) => c.type === 'Ready');

beforeAll(async () => {
  ns = await createNamespace(kc, 'ids');
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
});
afterAll(async () => ns.remove());

describe('status ids', () => {
  it('waits for a StatusPage, then assigns distinct ids that survive a restart and are never reused', async () => {
    await apply(
      build.statusComponent('api', build.inNamespace(ns.name)),
      build.statusComponent('web', build.inNamespace(ns.name)),
    );
    await startControllers();
    const waiting = await waitFor('NoStatusPage', async () => {
      const c = await component('api');
      return ready(c)?.reason === 'NoStatusPage' ? c : undefined;
    });
    expect(waiting.spec.id).toBeUndefined();

    await apply(build.statusPage(undefined, build.inNamespace(ns.name)));
    const ids = await waitFor('ids on both components', async () => {
      const [a, w] = await Promise.all([component('api'), component('web')]);
      return a.status?.id && w.status?.id ? [a.spec.id!, w.spec.id!] : undefined;
    });
    expect([...ids].sort()).toEqual([1, 2]);
    const apiId = ids[0];

    // Delete one, add another: the freed id is not handed out again.
    await kubectl(['delete', 'statuscomponent', 'web', '-n', ns.name]);
    await apply(build.statusComponent('docs', build.inNamespace(ns.name)));
    const docs = await waitFor('an id for docs', async () => (await component('docs')).spec.id);
    expect(docs).toBe(3);

    // A restart of the operator keeps every id.
    await running!.stop();
    await startControllers();
    await apply(build.statusComponent('cdn', build.inNamespace(ns.name)));
    const cdn = await waitFor('an id for cdn', async () => (await component('cdn')).spec.id);
    expect(cdn).toBe(4);
    expect((await component('api')).spec.id).toBe(apiId);
  });

  it('never hands out an id that was set by hand, even after its object is gone', async () => {
    await startControllers();
    await apply(build.statusComponent('hand-set', build.inNamespace(ns.name), build.spec({ id: 100 })));
    await waitFor(
      'hand-set to be published',
      async () => ready(await component('hand-set'))?.status === 'True',
    );
    await kubectl(['delete', 'statuscomponent', 'hand-set', '-n', ns.name]);
    await apply(build.statusComponent('after-hand-set', build.inNamespace(ns.name)));
    expect(await waitFor('an id', async () => (await component('after-hand-set')).spec.id)).toBe(101);
  });

  it('marks a second holder of an id as DuplicateId, and publishes it once the first is gone', async () => {
    await startControllers();
    await apply(build.statusComponent('first-7', build.inNamespace(ns.name), build.spec({ id: 7 })));
    await waitFor(
      'first-7 to be published',
      async () => ready(await component('first-7'))?.status === 'True',
    );
    await apply(build.statusComponent('second-7', build.inNamespace(ns.name), build.spec({ id: 7 })));
    await waitFor('DuplicateId', async () => ready(await component('second-7'))?.reason === 'DuplicateId');
    await kubectl(['delete', 'statuscomponent', 'first-7', '-n', ns.name]);
    await waitFor(
      'second-7 to be published',
      async () => ready(await component('second-7'))?.status === 'True',
    );
  });

  it('marks a missing parent and a cycle, and recovers when the parent appears', async () => {
    await startControllers();
    await apply(
      build.statusComponent(
        'orphan',
        build.inNamespace(ns.name),
        build.spec({ parentRef: { name: 'later' } }),
      ),
    );
    await waitFor(
      'ParentNotFound',
      async () => ready(await component('orphan'))?.reason === 'ParentNotFound',
    );
    await apply(build.statusComponent('later', build.inNamespace(ns.name)));
    await waitFor('orphan to become Ready', async () => ready(await component('orphan'))?.status === 'True');

    await apply(
      build.statusComponent(
        'loop-a',
        build.inNamespace(ns.name),
        build.spec({ parentRef: { name: 'loop-b' } }),
      ),
      build.statusComponent(
        'loop-b',
        build.inNamespace(ns.name),
        build.spec({ parentRef: { name: 'loop-a' } }),
      ),
    );
    await waitFor('ParentCycle', async () => ready(await component('loop-a'))?.reason === 'ParentCycle');
  });

  it('shows a notice state, begin and end in status', async () => {
    await startControllers();
    await apply(
      build.statusNotice(
        'incident',
        build.inNamespace(ns.name),
        build.spec({
          componentRefs: [{ name: 'api' }],
          updates: [
            { state: 'investigating', content: 'Looking.', at: '2026-01-02T03:00:00Z' },
            { state: 'resolved', content: 'Fixed.', at: '2026-01-02T04:00:00Z' },
          ],
        }),
      ),
    );
    const notice = await waitFor('notice status', async () => {
      const n = await api.get<StatusNoticeObject>('StatusNotice', ns.name, 'incident');
      return n.status?.state ? n : undefined;
    });
    expect(notice.status).toMatchObject({
      id: 1,
      state: 'resolved',
      beganAt: '2026-01-02T03:00:00.000Z',
      endedAt: '2026-01-02T04:00:00.000Z',
    });
    const { stdout } = await kubectl(['get', 'statusnotices', '-n', ns.name]);
    expect(stdout).toMatch(/incident\s+1\s+unplanned\s+resolved/);
  });
});
