// The in-memory store: what a watcher feeds in is what the next snapshot shows.
import { describe, expect, it } from '@jest/globals';
import { StatusStore } from '../../../status-api/store.ts';
import { componentObject, noticeObject, pageObject } from './builders.ts';

describe('StatusStore', () => {
  it('is synced only once every kind has delivered its initial list', () => {
    const store = new StatusStore();
    expect(store.synced).toBe(false);
    store.markSynced('StatusPage');
    store.markSynced('StatusComponent');
    expect(store.synced).toBe(false);
    store.markSynced('StatusNotice');
    expect(store.synced).toBe(true);
  });

  it('reuses one snapshot until something changes', () => {
    const store = new StatusStore();
    store.upsertComponent(componentObject('api', { id: 1 }));
    const first = store.snapshot();
    expect(store.snapshot()).toBe(first);
    store.upsertComponent(componentObject('db', { id: 2 }));
    const second = store.snapshot();
    expect(second).not.toBe(first);
    expect(second.version).toBeGreaterThan(first.version);
    expect(second.components.map((c) => c.id)).toEqual([1, 2]);
  });

  it('ignores a redelivery of the same resourceVersion', () => {
    const store = new StatusStore();
    const obj = componentObject('api', { id: 1 });
    obj.metadata.resourceVersion = '100';
    store.upsertComponent(obj);
    const before = store.snapshot();
    store.upsertComponent({ ...obj });
    expect(store.snapshot()).toBe(before);
    store.upsertComponent({
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: '99' },
      spec: { ...obj.spec, name: 'Renamed' },
    });
    expect(store.snapshot().components[0]?.name).toBe('Renamed');
  });

  it('replaces an object by name and forgets deleted ones', () => {
    const store = new StatusStore();
    store.upsertNotice(noticeObject('n', 'general', { id: 1, subject: 'Old' }));
    store.upsertNotice(noticeObject('n', 'general', { id: 1, subject: 'New' }));
    expect(store.snapshot().notices.map((n) => n.subject)).toEqual(['New']);
    store.deleteNotice('n');
    expect(store.snapshot().notices).toEqual([]);
    const after = store.snapshot();
    store.deleteNotice('n');
    expect(store.snapshot()).toBe(after);
  });

  it('shows a component once the operator has given it an id', () => {
    const store = new StatusStore();
    const obj = componentObject('api');
    store.upsertComponent(obj);
    expect(store.snapshot().components).toEqual([]);
    store.upsertComponent({ ...obj, status: { id: 4 } });
    expect(store.snapshot().componentById.get(4)?.name).toBe('API');
  });

  it('re-resolves parents and impacted components when the referenced object arrives later', () => {
    const store = new StatusStore();
    store.upsertComponent(componentObject('child', { id: 2, parent: 'parent' }));
    store.upsertNotice(noticeObject('n', 'unplanned', { id: 1, components: ['parent'] }));
    expect(store.snapshot().componentById.get(2)?.parentId).toBeNull();
    store.upsertComponent(componentObject('parent', { id: 1 }));
    const snapshot = store.snapshot();
    expect(snapshot.componentById.get(2)?.parentId).toBe(1);
    expect(snapshot.childrenByParentId.get(1)?.map((c) => c.id)).toEqual([2]);
    expect(snapshot.impactedComponents.get(1)?.map((c) => c.id)).toEqual([1]);
  });

  it('has no page after the StatusPage is deleted', () => {
    const store = new StatusStore();
    store.upsertPage(pageObject());
    store.deletePage('acme');
    expect(store.snapshot().page).toBeNull();
  });
});
