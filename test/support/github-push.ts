// A push delivery as GitHub sends it, to a real gateway over HTTP (the e2e tier, npm start's
// outage test).
import { createHmac, randomBytes } from 'node:crypto';

/** A push delivery exactly as GitHub signs it (X-Hub-Signature-256 over the raw body). */
export async function githubPush(
  hookUrl: string,
  secret: string,
  push: { branch: string; commit: string; message: string },
): Promise<{ status: number; body: { result?: string; bundles?: Array<{ name: string }> } }> {
  const res = await fetch(hookUrl, githubPushRequest(secret, push));
  return { status: res.status, body: (await res.json()) as never };
}

/** The request of a push delivery, for fetch. */
export function githubPushRequest(
  secret: string,
  push: { branch: string; commit: string; message: string },
): RequestInit {
  const body = JSON.stringify({
    ref: `refs/heads/${push.branch}`,
    before: '0'.repeat(40),
    after: push.commit,
    created: false,
    deleted: false,
    head_commit: { id: push.commit, message: push.message },
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
