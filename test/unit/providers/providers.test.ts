import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { Provider as GitProvider } from '../../../crds/index.ts';
import {
  MalformedPayloadError,
  UnsupportedProviderError,
  parseDelivery,
  recogniseProvider,
  verifyDelivery,
  type DeliverySource,
  type ParsedDelivery,
  projectProvider,
  repositoryProvider,
} from '../../../providers/index.ts';
import {
  ALL_FIXTURES,
  DOCUMENTED_SECRET,
  FIXTURE_DIR,
  TEST_SECRET,
  loadFixture,
  resign,
  signedFixture,
  type Delivery,
} from '../webhook-gateway/support/fixtures.ts';

/** Recognise, verify and parse, as the HTTP layer does. */
function receive(delivery: Delivery, secret: string = TEST_SECRET): ParsedDelivery {
  const source = recogniseProvider(delivery.headers, delivery.body);
  if (source === undefined) throw new Error('not recognised');
  const provider = source === 'bitbucket-server' ? 'bitbucket' : source;
  if (!verifyDelivery(source, delivery.headers, delivery.body, secret, provider))
    throw new Error('not verified');
  return parseDelivery(source, delivery.headers, delivery.body);
}

const expected: Record<string, ParsedDelivery> = {
  'github-push': {
    kind: 'push',
    provider: 'github',
    deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    changes: [
      {
        branch: 'master',
        commit: 'fd489864e7642b48eaad6e3f155c10e46810ec72',
        comment: 'test a push event',
        committedAt: '2018-06-29T14:04:13.000Z',
      },
    ],
  },
  'github-push-branch-created': {
    kind: 'push',
    provider: 'github',
    deliveryId: '675590b2-02bf-5809-a4f3-c5688e0782d1',
    changes: [
      {
        branch: 'master',
        commit: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        comment: 'Initial commit',
        committedAt: '2019-05-15T15:19:25.000Z',
      },
    ],
  },
  'github-push-branch-deleted': {
    kind: 'ignored',
    provider: 'github',
    deliveryId: '2947c8b0-8df2-5489-ac32-ed1a740b2de3',
    reason: 'branch deletion',
  },
  'github-push-tag-created': {
    kind: 'ignored',
    provider: 'github',
    deliveryId: 'b48ac6a3-1068-5c36-95bd-d2f76e56c735',
    reason: 'tag push',
  },
  'github-push-tag-deleted': {
    kind: 'ignored',
    provider: 'github',
    deliveryId: '762ed884-bb6c-5501-92f9-599648caa780',
    reason: 'tag push',
  },
  'github-ping': {
    kind: 'ignored',
    provider: 'github',
    deliveryId: '33f01390-36cd-11ec-94f4-a0896a480161',
    reason: 'ping',
  },
  'gitlab-push': {
    kind: 'push',
    provider: 'gitlab',
    deliveryId: '13792a34-cac6-4fda-95a8-c58e00a3954e',
    changes: [
      {
        branch: 'master',
        commit: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        comment: 'fixed readme',
        committedAt: '2012-01-03T21:36:29.000Z',
      },
    ],
  },
  'gitlab-push-branch-deleted': {
    kind: 'ignored',
    provider: 'gitlab',
    deliveryId: '654aea2c-793f-5711-8ede-b7a575e09dc2',
    reason: 'branch deletion',
  },
  'gitlab-tag-push': {
    kind: 'ignored',
    provider: 'gitlab',
    deliveryId: '88f4f610-f610-5ab9-9add-d4674f6fac3d',
    reason: 'tag push',
  },
  'bitbucket-repo-push': {
    kind: 'push',
    provider: 'bitbucket',
    deliveryId: '4ff54d85-10bf-553f-a8a6-fa5c859e2393',
    changes: [
      {
        branch: 'name-of-branch',
        commit: '709d658dc5b6d6afcd46049c2f332ee3f515a67d',
        comment: 'new commit message',
        committedAt: '2015-06-09T03:34:49.000Z',
      },
    ],
  },
  'bitbucket-repo-push-captured': {
    kind: 'push',
    provider: 'bitbucket',
    deliveryId: '834163b2-7a96-5fb5-a65a-f68e2629d5c4',
    changes: [
      {
        branch: 'master',
        commit: '141977fedf5cf35aa290ac87d4b5177ac4cd9de1',
        comment: 'Update README',
        committedAt: '2018-07-02T20:26:56.000Z',
      },
    ],
  },
  'bitbucket-repo-push-branch-deleted': {
    kind: 'ignored',
    provider: 'bitbucket',
    deliveryId: '8fc5a9ac-cf72-5869-9627-467f018674a5',
    reason: 'branch deletion',
  },
  'bitbucket-repo-push-tag-created': {
    kind: 'ignored',
    provider: 'bitbucket',
    deliveryId: 'a9b08dcc-9185-51d5-b859-23ee1dcf015d',
    reason: 'tag push',
  },
  // Captured from a real Gitea (SOURCES.md): it sends GitHub's headers too, and is still Gitea's.
  'gitea-push': {
    kind: 'push',
    provider: 'gitea',
    deliveryId: '9302a11d-2d34-4885-be1e-2d66e9a5ba28',
    changes: [
      {
        branch: 'main',
        commit: '90d948e5d990567242b1959ee3ac0129cf3ac1c4',
        comment: 'Add the home page',
        committedAt: '2026-11-26T05:00:00.000Z',
      },
    ],
  },
  'gitea-push-branch-created': {
    kind: 'push',
    provider: 'gitea',
    deliveryId: 'a2e38a34-e039-45a5-b785-f4c26588b02f',
    changes: [
      {
        branch: 'feature/x',
        commit: '90d948e5d990567242b1959ee3ac0129cf3ac1c4',
        comment: 'Add the home page',
        committedAt: '2026-11-26T05:00:00.000Z',
      },
    ],
  },
  'gitea-push-tag-created': {
    kind: 'ignored',
    provider: 'gitea',
    deliveryId: '00a03944-288e-4dbd-adcc-533ed0ed10a5',
    reason: 'tag push',
  },
  'azure-devops-git-push': {
    kind: 'push',
    provider: 'azure-devops',
    deliveryId: '03c164c2-8912-4d5e-8009-3707d5f83734',
    changes: [
      {
        branch: 'master',
        commit: '33b55f7cb7e7e245323987634f960cf4a6e6bc74',
        comment: 'Fixed bug in web.config file',
        committedAt: '2015-02-25T19:01:00.000Z',
      },
    ],
  },
};

describe('provider deliveries replayed from the fixtures', () => {
  it.each(Object.entries(expected))('%s', (name, result) => {
    expect(receive(signedFixture(name))).toEqual(result);
  });

  it.each(['bitbucket-server-repo-refs-changed', 'bitbucket-server-repo-refs-changed-branch-deleted'])(
    '%s is recognised as Bitbucket Server, verified, and refused as unsupported',
    (name) => {
      const delivery = signedFixture(name);
      expect(recogniseProvider(delivery.headers, delivery.body)).toBe('bitbucket-server');
      expect(
        verifyDelivery('bitbucket-server', delivery.headers, delivery.body, TEST_SECRET, 'bitbucket'),
      ).toBe(true);
      expect(() => parseDelivery('bitbucket-server', delivery.headers, delivery.body)).toThrow(
        UnsupportedProviderError,
      );
      expect(() => parseDelivery('bitbucket-server', delivery.headers, delivery.body)).toThrow(
        /not supported/,
      );
    },
  );

  it('covers every fixture in the folder', () => {
    const covered = new Set([
      ...Object.keys(expected),
      'bitbucket-server-repo-refs-changed',
      'bitbucket-server-repo-refs-changed-branch-deleted',
    ]);
    expect([...covered].sort()).toEqual([...ALL_FIXTURES].sort());
  });

  it('the published signatures of the fixtures verify with the documented secret (same HMAC as providers)', () => {
    for (const name of ALL_FIXTURES) {
      const delivery = loadFixture(name);
      const source = recogniseProvider(delivery.headers, delivery.body);
      expect(source).toBeDefined();
      expect(verifyDelivery(source!, delivery.headers, delivery.body, DOCUMENTED_SECRET, undefined)).toBe(
        true,
      );
      expect(verifyDelivery(source!, delivery.headers, delivery.body, TEST_SECRET, undefined)).toBe(false);
    }
  });

  it("matches GitHub's published HMAC test vector", () => {
    const vectors = readFileSync(new URL('hmac-test-vectors.txt', FIXTURE_DIR), 'utf8');
    const header = /^X-Hub-Signature-256: (.+)$/m.exec(vectors)![1]!;
    const headers = { 'x-github-event': 'push', 'x-hub-signature-256': header };
    expect(verifyDelivery('github', headers, Buffer.from('Hello, World!'), DOCUMENTED_SECRET, 'github')).toBe(
      true,
    );
    expect(verifyDelivery('github', headers, Buffer.from('Hello, World?'), DOCUMENTED_SECRET, 'github')).toBe(
      false,
    );
  });
});

describe('verification rejects', () => {
  const github = signedFixture('github-push');
  const gitlab = signedFixture('gitlab-push');
  const bitbucket = signedFixture('bitbucket-repo-push');
  const azure = signedFixture('azure-devops-git-push');
  const without = (delivery: Delivery, header: string) => {
    const headers = { ...delivery.headers };
    delete headers[header];
    return headers;
  };

  it.each<[string, DeliverySource, Record<string, string>, Buffer]>([
    ['GitHub without X-Hub-Signature-256', 'github', without(github, 'x-hub-signature-256'), github.body],
    [
      'GitHub with a signature made with another secret',
      'github',
      resign(github.headers, github.body, 'other'),
      github.body,
    ],
    [
      'GitHub with a body changed after signing',
      'github',
      github.headers,
      Buffer.concat([github.body, Buffer.from(' ')]),
    ],
    [
      'GitHub with only the legacy SHA-1 header',
      'github',
      {
        ...without(github, 'x-hub-signature-256'),
        'x-hub-signature': 'sha1=' + createHmac('sha1', TEST_SECRET).update(github.body).digest('hex'),
      },
      github.body,
    ],
    [
      'GitHub with a truncated signature',
      'github',
      { ...github.headers, 'x-hub-signature-256': github.headers['x-hub-signature-256']!.slice(0, 20) },
      github.body,
    ],
    ['GitLab without X-Gitlab-Token', 'gitlab', without(gitlab, 'x-gitlab-token'), gitlab.body],
    [
      'GitLab with a wrong token',
      'gitlab',
      { ...gitlab.headers, 'x-gitlab-token': TEST_SECRET + 'x' },
      gitlab.body,
    ],
    [
      'GitLab with a prefix of the token',
      'gitlab',
      { ...gitlab.headers, 'x-gitlab-token': TEST_SECRET.slice(0, 5) },
      gitlab.body,
    ],
    [
      'Bitbucket with a wrong signature',
      'bitbucket',
      resign(bitbucket.headers, bitbucket.body, 'other'),
      bitbucket.body,
    ],
    [
      'Bitbucket with a sha1 signature',
      'bitbucket',
      { ...bitbucket.headers, 'x-hub-signature': 'sha1=00' },
      bitbucket.body,
    ],
    [
      'Azure DevOps without X-Provider-Service-Key',
      'azure-devops',
      without(azure, 'x-provider-service-key'),
      azure.body,
    ],
    [
      'Azure DevOps with a wrong key',
      'azure-devops',
      { ...azure.headers, 'x-provider-service-key': 'nope' },
      azure.body,
    ],
  ])('%s', (_name, source, headers, body) => {
    expect(verifyDelivery(source, headers, body, TEST_SECRET, undefined)).toBe(false);
    expect(verifyDelivery(source, headers, body, TEST_SECRET, source as GitProvider)).toBe(false);
  });

  it("takes an unsigned Bitbucket delivery on the URL's token only for a Bitbucket project that does not require signatures", () => {
    const unsigned = without(bitbucket, 'x-hub-signature');
    // The seed's setup: Bitbucket's form with the URL alone.
    expect(verifyDelivery('bitbucket', unsigned, bitbucket.body, TEST_SECRET, 'bitbucket')).toBe(true);
    expect(
      verifyDelivery('bitbucket', unsigned, bitbucket.body, TEST_SECRET, 'bitbucket', {
        requireSignature: true,
      }),
    ).toBe(false);
    // Dressed as Bitbucket to a project of another provider, or of none known: refused.
    for (const expected of ['github', undefined] as const)
      expect(verifyDelivery('bitbucket', unsigned, bitbucket.body, TEST_SECRET, expected)).toBe(false);
    // A signature that is there is always checked.
    const wrong = { ...bitbucket.headers, 'x-hub-signature': 'sha256=00' };
    expect(verifyDelivery('bitbucket', wrong, bitbucket.body, TEST_SECRET, 'bitbucket')).toBe(false);
    // The other providers never take a delivery without their signature or secret.
    const github = signedFixture('github-push');
    expect(
      verifyDelivery('github', without(github, 'x-hub-signature-256'), github.body, TEST_SECRET, 'github'),
    ).toBe(false);
  });

  it('refuses a correctly signed delivery of another provider than the project names', () => {
    const signedGitlab = signedFixture('gitlab-push');
    expect(verifyDelivery('gitlab', signedGitlab.headers, signedGitlab.body, TEST_SECRET, 'gitlab')).toBe(
      true,
    );
    expect(verifyDelivery('gitlab', signedGitlab.headers, signedGitlab.body, TEST_SECRET, 'github')).toBe(
      false,
    );
  });
});

describe('the provider of a project', () => {
  it.each([
    ['https://github.com/acme/shop.git', 'github'],
    ['git@github.com:acme/shop.git', 'github'],
    ['ssh://git@gitlab.com/acme/shop.git', 'gitlab'],
    ['https://user:token@bitbucket.org/acme/shop.git', 'bitbucket'],
    ['https://dev.azure.com/acme/shop/_git/shop', 'azure-devops'],
    ['git@ssh.dev.azure.com:v3/acme/shop/shop', 'azure-devops'],
    ['https://acme.visualstudio.com/shop/_git/shop', 'azure-devops'],
    ['https://gitea.com/acme/shop.git', 'gitea'],
    ['https://codeberg.org/acme/shop.git', 'gitea'],
    ['https://gitea.example.com/acme/shop.git', undefined],
    ['https://git.example.com/acme/shop.git', undefined],
    ['https://github.com.evil.example/acme/shop.git', undefined],
    ['git://172.30.255.1:9418/shop.git', undefined],
    ['https://evil.example?@github.com/acme/shop.git', undefined],
    ['https://github.com./acme/shop.git', 'github'],
    ['HTTPS://GitHub.com:443/acme/shop.git', 'github'],
  ])('%s → %s', (url, provider) => {
    expect(repositoryProvider(url)).toBe(provider);
  });

  it('is spec.provider when set, for self-hosted servers', () => {
    expect(
      projectProvider({ provider: 'gitlab', repository: { url: 'https://git.example.com/a.git' } }),
    ).toBe('gitlab');
    expect(projectProvider({ repository: { url: 'https://github.com/a/b.git' } })).toBe('github');
    expect(projectProvider({})).toBeUndefined();
  });
});

describe('recognition', () => {
  it('does not recognise a body without provider headers or eventType', () => {
    expect(
      recogniseProvider({ 'content-type': 'application/json' }, Buffer.from('{"ref":"refs/heads/main"}')),
    ).toBeUndefined();
    expect(recogniseProvider({}, Buffer.from('not json'))).toBeUndefined();
  });

  it("takes a Gitea delivery for Gitea's although it carries GitHub's headers and a valid GitHub signature", () => {
    const delivery = loadFixture('gitea-push');
    expect(delivery.headers['x-github-event']).toBe('push');
    expect(recogniseProvider(delivery.headers, delivery.body)).toBe('gitea');
    // A GitHub project does not take it: Gitea projects say spec.provider: gitea.
    expect(verifyDelivery('gitea', delivery.headers, delivery.body, DOCUMENTED_SECRET, 'github')).toBe(false);
    expect(verifyDelivery('gitea', delivery.headers, delivery.body, DOCUMENTED_SECRET, 'gitea')).toBe(true);
    // Forgejo's own header names are Gitea's too.
    const forgejo = {
      'x-forgejo-event': 'push',
      'x-forgejo-signature': delivery.headers['x-gitea-signature']!,
    };
    expect(recogniseProvider(forgejo, delivery.body)).toBe('gitea');
    expect(verifyDelivery('gitea', forgejo, delivery.body, DOCUMENTED_SECRET, 'gitea')).toBe(true);
  });

  it('tells Bitbucket Cloud from Bitbucket Server by the headers each sends', () => {
    expect(recogniseProvider({ 'x-event-key': 'repo:push', 'x-request-uuid': 'u' }, Buffer.from('{}'))).toBe(
      'bitbucket',
    );
    expect(recogniseProvider({ 'x-event-key': 'repo:push' }, Buffer.from('{}'))).toBe('bitbucket');
    expect(recogniseProvider({ 'x-event-key': 'repo:refs_changed' }, Buffer.from('{}'))).toBe(
      'bitbucket-server',
    );
    expect(
      recogniseProvider({ 'x-event-key': 'diagnostics:ping', 'x-request-id': 'r' }, Buffer.from('{}')),
    ).toBe('bitbucket-server');
  });
});

describe('parsing', () => {
  it.each(['github-push', 'gitlab-push', 'bitbucket-repo-push', 'azure-devops-git-push'])(
    'a malformed JSON body from %s is a MalformedPayloadError',
    (name) => {
      const delivery = signedFixture(name);
      const source = recogniseProvider(delivery.headers, delivery.body)!;
      const broken = delivery.body.subarray(0, delivery.body.length - 10);
      expect(() => parseDelivery(source, delivery.headers, broken)).toThrow(MalformedPayloadError);
    },
  );

  it('a push without the fields a push has is malformed, and the message names them', () => {
    const headers = { 'x-github-event': 'push' };
    expect(() => parseDelivery('github', headers, Buffer.from('{"after":"abc"}'))).toThrow(
      /GitHub push.*ref/,
    );
  });

  it('a commit id that is not hex is malformed', () => {
    const body = Buffer.from(
      JSON.stringify({ ref: 'refs/heads/main', after: 'zzz; rm -rf /', head_commit: null }),
    );
    expect(() => parseDelivery('github', { 'x-github-event': 'push' }, body)).toThrow(MalformedPayloadError);
  });

  it('ignores events that are not pushes, naming the event', () => {
    const result = parseDelivery('github', { 'x-github-event': 'issues' }, Buffer.from('{}'));
    expect(result).toMatchObject({
      kind: 'ignored',
      reason: "GitHub event 'issues' is not a push or pull_request",
    });
    const gitlab = parseDelivery('gitlab', { 'x-gitlab-event': 'Note Hook' }, Buffer.from('{}'));
    expect(gitlab).toMatchObject({
      kind: 'ignored',
      reason: "GitLab event 'Note Hook' is not a push or merge request",
    });
    const bitbucket = parseDelivery('bitbucket', { 'x-event-key': 'issue:created' }, Buffer.from('{}'));
    expect(bitbucket).toMatchObject({ kind: 'ignored' });
    const azure = parseDelivery('azure-devops', {}, Buffer.from('{"eventType":"build.complete","id":"x"}'));
    expect(azure).toMatchObject({
      kind: 'ignored',
      reason: "Azure DevOps event 'build.complete' is not a push or pull request",
      deliveryId: 'x',
    });
  });

  it('counts every branch of a Bitbucket push with several changes, skipping tags and deletions', () => {
    const delivery = loadFixture('bitbucket-repo-push');
    const payload = JSON.parse(delivery.body.toString());
    const change = payload.push.changes[0];
    const other = structuredClone(change);
    other.new.name = 'release/2.0';
    other.new.target.hash = 'b'.repeat(40);
    other.new.target.message = 'Release 2.0\n\nLong description';
    const tag = structuredClone(change);
    tag.new.type = 'tag';
    const deletion = { ...structuredClone(change), new: null };
    payload.push.changes = [change, tag, other, deletion];
    const body = Buffer.from(JSON.stringify(payload));
    const result = parseDelivery('bitbucket', delivery.headers, body);
    expect(result).toMatchObject({
      kind: 'push',
      changes: [
        {
          branch: 'name-of-branch',
          commit: '709d658dc5b6d6afcd46049c2f332ee3f515a67d',
          comment: 'new commit message',
        },
        { branch: 'release/2.0', commit: 'b'.repeat(40), comment: 'Release 2.0' },
      ],
    });
  });

  it('a push of only a tag and a deletion gives both reasons', () => {
    const delivery = loadFixture('bitbucket-repo-push');
    const payload = JSON.parse(delivery.body.toString());
    const tag = structuredClone(payload.push.changes[0]);
    tag.new.type = 'annotated_tag';
    payload.push.changes = [tag, { new: null }];
    const result = parseDelivery('bitbucket', delivery.headers, Buffer.from(JSON.stringify(payload)));
    expect(result).toMatchObject({ kind: 'ignored', reason: 'branch deletion, tag push' });
  });

  it('a GitLab push takes the comment from the commit that after names, wherever it is listed', () => {
    const payload = JSON.parse(loadFixture('gitlab-push').body.toString());
    payload.commits.reverse();
    const body = Buffer.from(JSON.stringify(payload));
    const result = parseDelivery('gitlab', { 'x-gitlab-event': 'Push Hook' }, body);
    expect(result.kind === 'push' && result.changes[0]!.comment).toBe('fixed readme');
  });
});
