// What one notification says (pure; docs/notifications.md): the facts of how a bundle ended, the
// line a person reads first, and the rows they scan. Each notification type (types/) lays these
// out in its receiver's format.
import type { NotificationEvent, NotificationType } from '../../crds/index.ts';

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

/** Where a notification goes, read from its Secret. */
export interface Receiver {
  type: NotificationType;
  url: string;
  hmacKey?: string;
}

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
    PreviewReady: `${to} is ready (${bundle})`,
    PreviewFailed: `${to} failed (${bundle})`,
    PreviewRemoved: `${to} was removed`,
  };
  return `${project}: ${lines[facts.event]}`;
}

/** The facts a person scans: commit, branch, environment, namespace. */
export function details(facts: NotificationFacts): Array<[string, string]> {
  const rows: Array<[string, string | null]> = [
    ['Commit', facts.commit ? facts.commit.slice(0, 12) : null],
    ['Branch', facts.branch],
    ['Environment', facts.environment],
    ['Namespace', facts.namespace],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== null);
}
