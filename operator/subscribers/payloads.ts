// Statuspage's webhook payloads (support.atlassian.com: "Enable webhook notifications"), built
// from the shapes the status API's /api/v2 also serves (rules/statuspage.ts): an incident or
// maintenance created or updated, or a component's status change, each with `meta` and the
// page's indicator. Signed like a Project's generic-hmac notifications when a key is given.
import type { OutboundRequest } from '../../lib/outbound-request.ts';
import type { PageState } from '../../rules/page-state.ts';
import { STATUSPAGE_WORDS, type ComponentCore, type IncidentCore } from '../../rules/statuspage.ts';
import { signature } from '../delivery/signature.ts';

const USER_AGENT = 'slipway-status-webhooks';

export interface PageFacts {
  /** The StatusPage's name, as /api/v2's page.id. */
  id: string;
  state: PageState;
  /** The human-readable page (spec.url). */
  url: string;
}

function envelope(page: PageFacts, now: Date) {
  const { indicator, description } = STATUSPAGE_WORDS.pageStatus[page.state];
  return {
    meta: { unsubscribe: null, documentation: page.url, generated_at: now.toISOString() },
    page: { id: page.id, status_indicator: indicator, status_description: description },
  };
}

/** A component's status changed from `oldStatus` to `newStatus` (Statuspage's words) at `at`. */
export function componentPayload(
  page: PageFacts,
  component: ComponentCore,
  change: { oldStatus: string; newStatus: string; at: string },
  now: Date,
) {
  return {
    ...envelope(page, now),
    component_update: {
      // One id per change, the same in every retry: receivers can drop a second copy.
      id: `${component.id}-${Date.parse(change.at)}`,
      component_id: component.id,
      component_type: 'Component',
      old_status: change.oldStatus,
      new_status: change.newStatus,
      created_at: change.at,
    },
    component,
  };
}

/** An incident or maintenance was created or updated: all of it, its newest update first. */
export function incidentPayload(
  page: PageFacts,
  incident: IncidentCore & { components: ComponentCore[] },
  now: Date,
) {
  return { ...envelope(page, now), incident };
}

export function webhookRequest(url: string, hmacKey: string | undefined, payload: object): OutboundRequest {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (hmacKey) headers['x-signature'] = signature(hmacKey, body);
  return { method: 'POST', url, headers, body };
}
