// Collecting stored archives no Bundle refers to, with the filesystem store and with the S3
// store on a real S3-compatible server.
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { collectOrphanArchives } from '../../../webhook-gateway/archive/collector.ts';
import {
  archiveLimits,
  FilesystemArchiveStore,
  type ArchiveStore,
} from '../../../webhook-gateway/archive/index.ts';
import { startS3, type S3Fixture } from './support/s3.ts';
import { baseDirectory, tarGz } from './support/tarballs.ts';

const HOUR = 60 * 60_000;
let s3: S3Fixture;
let dir: string;
beforeAll(async () => {
  s3 = await startS3();
  dir = await mkdtemp(join(tmpdir(), 'slipway-collector-'));
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

/** Stores three different archives: two in team-web (shop, blog), one in team-ops. */
async function storeThree(store: ArchiveStore) {
  const put = async (namespace: string, project: string, extra: string) => {
    const archive = await tarGz([...baseDirectory(), { name: `web/${extra}.txt`, content: extra }]);
    return (await store.receive(Readable.from([archive]), { namespace, project }, archiveLimits())).key;
  };
  return {
    kept: await put('team-web', 'shop', 'kept'),
    orphan: await put('team-web', 'blog', 'orphan'),
    elsewhere: await put('team-ops', 'tools', 'elsewhere'),
  };
}

async function keys(store: ArchiveStore, namespace?: string) {
  const found: string[] = [];
  for await (const { key } of store.list(namespace)) found.push(key);
  return found.sort();
}

const stores: Array<[string, () => ArchiveStore]> = [
  ['filesystem', () => new FilesystemArchiveStore(join(dir, 'fs'))],
  ['s3', () => s3.store({ stagingDir: join(dir, 'staging'), prefix: 'collector/' })],
];

describe.each(stores)('collecting unused archives (%s store)', (_name, makeStore) => {
  it('deletes the old archives no bundle refers to, in the watched namespace only', async () => {
    const store = makeStore();
    const { kept, orphan, elsewhere } = await storeThree(store);
    expect(await keys(store)).toEqual([kept, orphan, elsewhere].sort());
    expect(await keys(store, 'team-web')).toEqual([kept, orphan].sort());

    const referencedKeys = () => new Set([kept]);
    // Young archives are kept: a bundle may be on its way.
    const young = await collectOrphanArchives({
      store,
      referencedKeys,
      namespace: 'team-web',
      graceMs: HOUR,
      now: () => new Date(),
    });
    expect(young).toEqual({ removed: [], seen: 2, ran: true });
    const later = () => new Date(Date.now() + 2 * HOUR);
    const old = await collectOrphanArchives({
      store,
      referencedKeys,
      namespace: 'team-web',
      graceMs: HOUR,
      now: later,
    });
    expect(old.removed).toEqual([orphan]);
    expect(await keys(store)).toEqual([kept, elsewhere].sort());
  });

  it('does nothing while the bundle cache is not synced, or for what a new bundle took meanwhile', async () => {
    const store = makeStore();
    const { orphan } = await storeThree(store);
    const later = () => new Date(Date.now() + 2 * HOUR);
    const unsynced = await collectOrphanArchives({
      store,
      referencedKeys: () => undefined,
      graceMs: HOUR,
      now: later,
    });
    expect(unsynced).toEqual({ removed: [], seen: 0, ran: false });
    // The first look finds it unused; a bundle refers to it by the time it would be deleted.
    let looks = 0;
    const claimed = await collectOrphanArchives({
      store,
      referencedKeys: () => (looks++ === 0 ? new Set<string>() : new Set([orphan])),
      namespace: 'team-web',
      graceMs: HOUR,
      now: later,
    });
    expect(claimed.removed).not.toContain(orphan);
    expect(await keys(store, 'team-web')).toContain(orphan);
  });
});

it('lists each archive with the time it was last stored', async () => {
  const store = new FilesystemArchiveStore(join(dir, 'renewed'));
  const { orphan } = await storeThree(store);
  const old = new Date(Date.now() - 3 * HOUR);
  await utimes(join(store.dir, orphan), old, old);
  const listed = new Map<string, number>();
  for await (const { key, modifiedAt } of store.list('team-web')) listed.set(key, modifiedAt.getTime());
  expect(listed.get(orphan)).toBe(old.getTime());
});
