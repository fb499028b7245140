// Azure DevOps service hooks: no event header, the body's `eventType` names the event; a git.push
// ("Code pushed") may update several refs.
// https://learn.microsoft.com/azure/devops/service-hooks/events#git.push
import { z } from 'zod';
import {
  classifyRef,
  commitId,
  decodeJson,
  deliveryId,
  firstLine,
  isZeroObjectId,
  noBranchReason,
  readPayload,
} from './payload.ts';
import { headerValue, type BranchChange, type ParsedDelivery, type ProviderModule } from './provider.ts';
import { matchesSecret } from './signatures.ts';

export const azureDevOps: ProviderModule<'azure-devops'> = {
  name: 'azure-devops',
  title: 'Azure DevOps',
  publicHosts: /^(ssh\.)?dev\.azure\.com$|^([a-z0-9-]+\.)?visualstudio\.com$/,
  recognisedBy: 'an eventType in the body',
  // Azure DevOps sends no event header: the body's `eventType` names the event.
  recognise: (_headers, body) => (hasEventType(body) ? 'azure-devops' : undefined),
  verify: (headers, _body, secret) => matchesSecret(headerValue(headers, 'x-provider-service-key'), secret),
  parse: (_headers, body) => parseAzureDevOps(body),
  form: {
    where: 'Project settings → Service hooks → + → Web Hooks; trigger "Code pushed"',
    fields: (url, secret) => [
      ['URL', url],
      ['HTTP headers', `X-Provider-Service-Key: ${secret}`],
      ['Basic authentication', 'leave empty'],
      ['Resource details to send', 'All'],
    ],
  },
};

function hasEventType(body: Buffer): boolean {
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

const envelope = z.object({ eventType: z.string(), id: z.string().nullish() });

const pushPayload = z.object({
  resource: z.object({
    refUpdates: z.array(z.object({ name: z.string(), newObjectId: z.string() })),
    commits: z.array(z.object({ commitId: z.string(), comment: z.string().nullish() })).nullish(),
  }),
});

export function parseAzureDevOps(body: Buffer): ParsedDelivery {
  const payload = decodeJson(body);
  const event = readPayload(envelope, payload, 'Azure DevOps service hook');
  const base = { provider: 'azure-devops' as const, deliveryId: deliveryId(event.id ?? undefined) };
  if (event.eventType !== 'git.push') {
    return { ...base, kind: 'ignored', reason: `Azure DevOps event '${event.eventType}' is not a push` };
  }

  const { resource } = readPayload(pushPayload, payload, 'Azure DevOps git.push');
  const changes: BranchChange[] = [];
  const skipped = new Set<string>();
  for (const [index, update] of resource.refUpdates.entries()) {
    const ref = classifyRef(update.name);
    if (ref.kind === 'tag') skipped.add('tag push');
    else if (ref.kind === 'other') skipped.add('push to a ref that is not a branch');
    else if (isZeroObjectId(update.newObjectId)) skipped.add('branch deletion');
    else {
      const commit = commitId(update.newObjectId, `resource.refUpdates.${index}.newObjectId`);
      const head = resource.commits?.find((c) => c.commitId.toLowerCase() === commit);
      changes.push({ branch: ref.branch, commit, comment: firstLine(head?.comment) });
    }
  }
  if (changes.length === 0) return { ...base, kind: 'ignored', reason: noBranchReason(skipped) };
  return { ...base, kind: 'push', changes };
}
