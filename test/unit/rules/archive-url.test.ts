// Which archive URLs the operator signs for a bundle: only the gateway's own archives of the
// bundle's project (rules/archive-url.ts).
import { describe, expect, it } from '@jest/globals';
import { archiveKey, archiveUrl, foreignArchiveProblem } from '../../../rules/archive-url.ts';

const SHA = 'a'.repeat(64);
const BASE = 'http://slipway-gateway.slipway-system.svc';

describe('foreignArchiveProblem', () => {
  it("accepts the gateway's archive of the bundle's own project", () => {
    const url = archiveUrl(BASE, archiveKey('team', 'shop', SHA));
    expect(foreignArchiveProblem(url, BASE, 'team', 'shop')).toBeUndefined();
    expect(foreignArchiveProblem(url, `${BASE}/`, 'team', 'shop')).toBeUndefined();
  });

  it.each([
    [
      'another namespace',
      archiveUrl(BASE, archiveKey('other', 'shop', SHA)),
      /of project other\/shop, not of team\/shop/,
    ],
    [
      'another project',
      archiveUrl(BASE, archiveKey('team', 'blog', SHA)),
      /of project team\/blog, not of team\/shop/,
    ],
    [
      'a project whose name starts the same',
      archiveUrl(BASE, archiveKey('team', 'shop2', SHA)),
      /team\/shop2/,
    ],
    [
      'another host',
      archiveUrl('https://evil.example', archiveKey('team', 'shop', SHA)),
      /not an archive of this cluster's gateway/,
    ],
    [
      'another scheme',
      archiveUrl(BASE.replace('http:', 'https:'), archiveKey('team', 'shop', SHA)),
      /not an archive of this cluster's gateway/,
    ],
    ['a path beside the archives', `${BASE}/upload.sh`, /not an archive of this cluster's gateway/],
    [
      'a path that climbs out',
      `${BASE}/archives/team/shop/../../other/shop/${SHA}.tar.gz`,
      /of project other\/shop/,
    ],
    ['no key', `${BASE}/archives/`, /names no archive/],
    ['not a URL', 'archives/team/shop/x', /is not a URL/],
  ])('refuses %s', (_what, url, message) => {
    expect(foreignArchiveProblem(url, BASE, 'team', 'shop')).toMatch(message);
  });
});
