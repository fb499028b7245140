// A push or pull-request delivery as GitHub sends it, to a real gateway over HTTP (the e2e tier,
// npm start's outage test).
import { createHmac, randomBytes } from 'node:crypto';

/** A push delivery exactly as GitHub signs it (X-Hub-Signature-256 over the raw body). */
export async function githubPush(
  hookUrl: string,
  secret: string,
  push: { branch: string; commit: string; message: string; committedAt?: string },
): Promise<{ status: number; body: { result?: string; bundles?: Array<{ name: string }> } }> {
  const res = await fetch(hookUrl, githubPushRequest(secret, push));
  return { status: res.status, body: (await res.json()) as never };
}

/** The request of a push delivery, for fetch. */
export function githubPushRequest(
  secret: string,
  push: { branch: string; commit: string; message: string; committedAt?: string },
): RequestInit {
  const body = JSON.stringify({
    ref: `refs/heads/${push.branch}`,
    before: '0'.repeat(40),
    after: push.commit,
    created: false,
    deleted: false,
    // GitHub sends the head commit's time with it (what the lead time counts from).
    head_commit: {
      id: push.commit,
      message: push.message,
      timestamp: push.committedAt ?? new Date().toISOString(),
    },
    repository: { full_name: 'acme/site' },
  });
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  return {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': randomBytes(8).toString('hex'),
      'X-Hub-Signature-256': `sha256=${signature}`,
    },
    body,
  };
}

/**
 * A pull_request delivery exactly as GitHub signs it, with the fields Slipway reads (the rest of
 * the payload is GitHub's too, in shared/fixtures/providers/pull-requests).
 */
export async function githubPullRequest(
  hookUrl: string,
  secret: string,
  pr: { action: string; number: number; branch: string; commit: string; labels: string[]; merged?: boolean },
): Promise<{ status: number; body: { result?: string; preview?: { name: string }; reason?: string } }> {
  const closed = pr.action === 'closed';
  const repo = { id: 1296269, full_name: 'acme/site' };
  const body = JSON.stringify({
    action: pr.action,
    number: pr.number,
    pull_request: {
      number: pr.number,
      title: `Pull request ${pr.number}`,
      state: closed ? 'closed' : 'open',
      merged: pr.merged === true,
      draft: false,
      html_url: `https://github.com/acme/site/pull/${pr.number}`,
      user: { login: 'octocat' },
      labels: pr.labels.map((name) => ({ name })),
      head: { ref: pr.branch, sha: pr.commit, repo },
      base: { ref: 'main', sha: '0'.repeat(40), repo },
    },
    repository: repo,
  });
  const res = await fetch(hookUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': randomBytes(8).toString('hex'),
      'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as never };
}
