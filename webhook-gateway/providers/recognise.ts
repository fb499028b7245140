// Which provider sent a delivery: by its event header, or for Azure DevOps (which sends no
// event header) by the body's `eventType`.
import { headerValue, type DeliverySource, type RequestHeaders } from './types.ts';

// Bitbucket Server / Data Center also sends X-Event-Key. Bitbucket Cloud always adds X-Hook-UUID and
// X-Request-UUID; Server sends X-Request-Id and its own event keys instead.
const BITBUCKET_SERVER_EVENTS =
  /^(repo:refs_changed|repo:modified|repo:forked|repo:comment:|diagnostics:ping|pr:|mirror:)/;

export function recogniseProvider(headers: RequestHeaders, body: Buffer): DeliverySource | undefined {
  if (headerValue(headers, 'x-github-event') !== undefined) return 'github';
  if (headerValue(headers, 'x-gitlab-event') !== undefined) return 'gitlab';
  const eventKey = headerValue(headers, 'x-event-key');
  if (eventKey !== undefined) return isBitbucketServer(headers, eventKey) ? 'bitbucket-server' : 'bitbucket';
  if (hasAzureDevOpsEventType(body)) return 'azure-devops';
  return undefined;
}

function isBitbucketServer(headers: RequestHeaders, eventKey: string): boolean {
  const cloudHeaders =
    headerValue(headers, 'x-hook-uuid') !== undefined || headerValue(headers, 'x-request-uuid') !== undefined;
  if (cloudHeaders) return false;
  return headerValue(headers, 'x-request-id') !== undefined || BITBUCKET_SERVER_EVENTS.test(eventKey);
}

function hasAzureDevOpsEventType(body: Buffer): boolean {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  return (
    typeof payload === 'object' &&
    payload !== null &&
    typeof (payload as { eventType?: unknown }).eventType === 'string'
  );
}
