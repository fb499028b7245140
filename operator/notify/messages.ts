// The request each kind of receiver gets for one event (pure; docs/notifications.md):
//   generic       POST application/json: the event's facts as one object
//   generic-hmac  the same, with X-Signature: sha256=<hex HMAC-SHA256 of the body under hmacKey>
//                 (as Flux's notification-controller signs)
//   slack         a Slack incoming-webhook message: a line of text and a coloured attachment
//   msteams       a Teams incoming-webhook message holding an Adaptive Card (Workflows and connectors)
import { createHmac } from 'node:crypto';
import type { NotificationEvent, NotificationType } from '../../crds/index.ts';
import type { ApiRequest } from '../../providers/report.ts';
import { severityOf } from './happened.ts';

/** What one notification says; the generic body is exactly this, absent facts as null. */
export interface NotificationFacts {
  event: NotificationEvent;
  severity: 'info' | 'error';
  project: string;
  namespace: string;
  bundle: string;
  commit: string | null;
  branch: string | null;
  environment: string | null;
  message: string;
  /** When the bundle finished (RFC 3339). */
  time: string;
  /** Where a person sees the bundle. */
  url: string | null;
}

export interface Receiver {
  type: NotificationType;
  url: string;
  hmacKey?: string;
}

const USER_AGENT = 'slipway-notifier';

/** One line a person reads first: "shop: deployed shop-1a2b3c4 to production". */
export function headline(facts: NotificationFacts): string {
  const { project, bundle, environment } = facts;
  const to = environment ?? 'its environment';
  const lines: Record<NotificationEvent, string> = {
    Built: `built ${bundle}`,
    Deployed: `deployed ${bundle} to ${to}`,
    RolledBack: `${to} rolled back (${bundle})`,
    BuildFailed: `the build of ${bundle} failed`,
    BackupFailed: `the backup before deploying ${bundle} to ${to} failed`,
    RolloutFailed: `the rollout of ${bundle} to ${to} failed`,
  };
  return `${project}: ${lines[facts.event]}`;
}

/** The facts a person scans: commit, branch, environment, namespace. */
function details(facts: NotificationFacts): Array<[string, string]> {
  const rows: Array<[string, string | null]> = [
    ['Commit', facts.commit ? facts.commit.slice(0, 12) : null],
    ['Branch', facts.branch],
    ['Environment', facts.environment],
    ['Namespace', facts.namespace],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== null);
}

/** Slack's text needs &, < and > escaped (its link syntax uses them). */
const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function slackBody(facts: NotificationFacts): unknown {
  const title = slackEscape(headline(facts));
  return {
    text: facts.url ? `<${facts.url}|${title}>` : title,
    attachments: [
      {
        color: severityOf(facts.event) === 'error' ? 'danger' : 'good',
        fallback: title,
        text: slackEscape(facts.message),
        fields: details(facts).map(([name, value]) => ({
          title: name,
          value: slackEscape(value),
          short: true,
        })),
        footer: 'Slipway',
        ts: Math.floor(Date.parse(facts.time) / 1000),
      },
    ],
  };
}

function teamsBody(facts: NotificationFacts): unknown {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              text: headline(facts),
              weight: 'Bolder',
              size: 'Medium',
              wrap: true,
              ...(severityOf(facts.event) === 'error' ? { color: 'Attention' } : {}),
            },
            ...(facts.message ? [{ type: 'TextBlock', text: facts.message, wrap: true }] : []),
            { type: 'FactSet', facts: details(facts).map(([title, value]) => ({ title, value })) },
          ],
          ...(facts.url
            ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the bundle', url: facts.url }] }
            : {}),
        },
      },
    ],
  };
}

/** The hex HMAC-SHA256 of the body, as X-Signature carries it. */
export const signature = (key: string, body: string) =>
  `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;

export function notificationRequest(receiver: Receiver, facts: NotificationFacts): ApiRequest {
  const body = JSON.stringify(
    receiver.type === 'slack' ? slackBody(facts) : receiver.type === 'msteams' ? teamsBody(facts) : facts,
  );
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (receiver.type === 'generic-hmac' && receiver.hmacKey)
    headers['x-signature'] = signature(receiver.hmacKey, body);
  return { method: 'POST', url: receiver.url, headers, body };
}
