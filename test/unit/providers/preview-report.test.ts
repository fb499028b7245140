// What a preview tells its pull request: the comment's text and the slipway/preview status, for
// each state a reviewer may find it in.
import { describe, expect, it } from '@jest/globals';
import type { PreviewObject } from '../../../crds/index.ts';
import { commentDigest, previewCommitStatus, previewComment } from '../../../providers/preview-report.ts';
import { preview as previewOf, spec } from '../../support/builders.ts';

const HEAD = 'a'.repeat(40);
const OLD = 'b'.repeat(40);

function preview(status: PreviewObject['status'], deleting = false): PreviewObject {
  const made = previewOf('shop-pr-7', spec({ headCommit: HEAD }));
  if (deleting) made.metadata.deletionTimestamp = '2026-11-28T10:00:00Z';
  made.status = status;
  return made;
}
const ready = (reason: string, message: string, status: 'True' | 'False' | 'Unknown' = 'False') => [
  { type: 'Ready', status, reason, message, lastTransitionTime: '2026-11-28T10:00:00Z' },
];

describe("a preview's comment", () => {
  it('ready: the URL and the commit served', () => {
    const body = previewComment(
      preview({
        phase: 'Ready',
        url: 'http://pr-7.test',
        deployedCommit: HEAD,
        conditions: ready('Served', 'x', 'True'),
      }),
    );
    expect(body).toContain('✅ ready');
    expect(body).toContain('| URL | http://pr-7.test |');
    expect(body).toContain('| Commit | `aaaaaaaaaaaa` |');
  });

  it('building after a push: what is served now, what is being built, and no progress that would edit it at every step', () => {
    const at = (message: string) =>
      previewComment(
        preview({
          phase: 'Building',
          url: 'http://pr-7.test',
          deployedCommit: OLD,
          conditions: ready('Progressing', message, 'Unknown'),
        }),
      );
    expect(at('rolling out x')).toContain('| Commit | `bbbbbbbbbbbb` |');
    expect(at('rolling out x')).toContain('| Building | `aaaaaaaaaaaa` |');
    expect(commentDigest(at('rolling out x'))).toBe(commentDigest(at('Deployment is rolling out')));
  });

  it('waiting says why, with mentions and HTML made inert', () => {
    const body = previewComment(
      preview({ phase: 'Waiting', conditions: ready('ForkNotAllowed', 'from a fork <b>@everyone</b>') }),
    );
    expect(body).toContain('⏸️ waiting');
    expect(body).toContain('from a fork b@\u200beveryone/b');
    expect(body).not.toContain('<b>');
  });

  it('removed: says so, without the URL', () => {
    const body = previewComment(
      preview(
        {
          phase: 'Removing',
          url: 'http://pr-7.test',
          deployedCommit: HEAD,
          conditions: ready('Removed', 'x'),
        },
        true,
      ),
    );
    expect(body).toContain('🗑️ removed');
    expect(body).not.toContain('http://pr-7.test');
  });
});

describe('the slipway/preview commit status', () => {
  it('success links to the preview once it serves the head commit', () => {
    expect(
      previewCommitStatus(
        preview({
          phase: 'Ready',
          url: 'http://pr-7.test',
          deployedCommit: HEAD,
          conditions: ready('Served', 'x', 'True'),
        }),
      ),
    ).toEqual({
      state: 'success',
      context: 'slipway/preview',
      description: 'Preview ready at http://pr-7.test',
      targetUrl: 'http://pr-7.test',
    });
  });

  it("pending while building or waiting, failure when it failed or a fork's was taken down, none for a fork that is not built or a removal", () => {
    expect(
      previewCommitStatus(preview({ phase: 'Building', conditions: ready('Building', 'b', 'Unknown') }))
        ?.state,
    ).toBe('pending');
    expect(
      previewCommitStatus(preview({ phase: 'Failed', conditions: ready('BuildFailed', 'it broke\nmore') })),
    ).toMatchObject({
      state: 'failure',
      description: 'it broke',
    });
    expect(
      previewCommitStatus(preview({ phase: 'Waiting', conditions: ready('ForkNotAllowed', 'fork') })),
    ).toBeUndefined();
    // Served once (forks were Approve), then taken down when they became Deny: no green status left.
    const served = [{ id: `slipway/preview@${HEAD}`, value: 'success' }];
    expect(
      previewCommitStatus(
        preview({ phase: 'Waiting', conditions: ready('ForkNotAllowed', 'fork'), reported: served }),
      ),
    ).toMatchObject({
      state: 'failure',
      description: 'Preview taken down: previews of forks are not allowed',
    });
    expect(
      previewCommitStatus(preview({ phase: 'Ready', conditions: ready('Served', 'x', 'True') }, true)),
    ).toBeUndefined();
  });
});
