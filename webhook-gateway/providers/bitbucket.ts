// Bitbucket Cloud: X-Event-Key names the event; one repo:push may update several refs, and every
// updated branch counts. https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/#Push
import { z } from 'zod';
import {
  branchName,
  commitId,
  decodeJson,
  deliveryId,
  firstLine,
  noBranchReason,
  readPayload,
} from './payload.ts';
import { headerValue, type BranchChange, type ParsedDelivery, type RequestHeaders } from './types.ts';

const refState = z.object({
  type: z.string(),
  name: z.string(),
  target: z.object({ hash: z.string(), message: z.string().nullish() }),
});

const pushPayload = z.object({
  push: z.object({ changes: z.array(z.object({ new: refState.nullable() })) }),
});

export function parseBitbucket(headers: RequestHeaders, body: Buffer): ParsedDelivery {
  const id = headerValue(headers, 'x-request-uuid') ?? headerValue(headers, 'x-hook-uuid');
  const base = { provider: 'bitbucket' as const, deliveryId: deliveryId(id) };
  const event = headerValue(headers, 'x-event-key') ?? '';
  const payload = decodeJson(body);
  if (event !== 'repo:push')
    return { ...base, kind: 'ignored', reason: `Bitbucket event '${event}' is not a push` };

  const push = readPayload(pushPayload, payload, 'Bitbucket repo:push');
  const changes: BranchChange[] = [];
  const skipped = new Set<string>();
  for (const [index, change] of push.push.changes.entries()) {
    if (change.new === null) skipped.add('branch deletion');
    else if (change.new.type !== 'branch') skipped.add('tag push');
    else {
      changes.push({
        branch: branchName(change.new.name),
        commit: commitId(change.new.target.hash, `push.changes.${index}.new.target.hash`),
        comment: firstLine(change.new.target.message),
      });
    }
  }
  if (changes.length === 0) return { ...base, kind: 'ignored', reason: noBranchReason(skipped) };
  return { ...base, kind: 'push', changes };
}
