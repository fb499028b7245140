// Keeps the store current from informers on the three status kinds of one namespace, so no
// request ever calls the API server.
import type { KubeConfig } from '@kubernetes/client-node';
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../crds/index.ts';
import { Informer } from '../lib/informer.ts';
import { kindPath } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import type { StatusStore } from './store.ts';

type Obj = StatusPageObject | StatusComponentObject | StatusNoticeObject;

export async function watchStatusResources(
  kc: KubeConfig,
  namespace: string,
  store: StatusStore,
  log: Logger,
) {
  const feeds = [
    {
      kind: 'StatusPage' as const,
      upsert: (o: Obj) => store.upsertPage(o as StatusPageObject),
      remove: (name: string) => store.deletePage(name),
    },
    {
      kind: 'StatusComponent' as const,
      upsert: (o: Obj) => store.upsertComponent(o as StatusComponentObject),
      remove: (name: string) => store.deleteComponent(name),
    },
    {
      kind: 'StatusNotice' as const,
      upsert: (o: Obj) => store.upsertNotice(o as StatusNoticeObject),
      remove: (name: string) => store.deleteNotice(name),
    },
  ];
  const informers = feeds.map(({ kind, upsert, remove }) => {
    // updated_at is the time of the last spec change, read from managedFields: keep them.
    const informer = new Informer<Obj>(kc, kindPath(kind, namespace), log, { keepManagedFields: true });
    informer.onEvent((obj, type) => (type === 'delete' ? remove(obj.metadata.name) : upsert(obj)));
    return { kind, informer };
  });
  await Promise.all(
    informers.map(async ({ kind, informer }) => {
      await informer.start();
      store.markSynced(kind);
    }),
  );
  return { stop: () => Promise.all(informers.map(({ informer }) => informer.stop())) };
}
