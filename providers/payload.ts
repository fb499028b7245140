// Helpers shared by the provider parsers: JSON decoding, schema checks and git ref rules.
import type { z } from 'zod';
import { MalformedPayloadError } from './provider.ts';

/** Decodes a raw body as JSON; anything else is a malformed payload. */
export function decodeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new MalformedPayloadError('the body is not valid JSON');
  }
}

/** Checks the fields a parser reads; the message names the first few fields that are wrong. */
export function readPayload<T extends z.ZodType>(schema: T, payload: unknown, what: string): z.output<T> {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new MalformedPayloadError(`not a ${what} payload (${problems})`);
}

const OBJECT_ID = /^[0-9a-f]{7,64}$/;
const ZERO_ID = /^0+$/;
const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
const MAX_BRANCH_LENGTH = 255;
const MAX_COMMENT_LENGTH = 4096;
const MAX_DELIVERY_ID_LENGTH = 256;

/** Providers announce a deleted ref by setting its new object id to all zeros. */
export function isZeroObjectId(id: string | null | undefined): boolean {
  return typeof id === 'string' && ZERO_ID.test(id);
}

export function commitId(id: string, where: string): string {
  const commit = id.toLowerCase();
  if (!OBJECT_ID.test(commit)) throw new MalformedPayloadError(`${where} is not a git object id`);
  return commit;
}

/** What a ref names: a branch (its short name), a tag, or something else (notes, merge requests…). */
export type RefKind = { kind: 'branch'; branch: string } | { kind: 'tag' } | { kind: 'other' };

export function classifyRef(ref: string): RefKind {
  if (ref.startsWith(TAG_PREFIX)) return { kind: 'tag' };
  if (!ref.startsWith(BRANCH_PREFIX)) return { kind: 'other' };
  const branch = ref.slice(BRANCH_PREFIX.length);
  if (branch === '' || branch.length > MAX_BRANCH_LENGTH) {
    throw new MalformedPayloadError(`ref ${ref.slice(0, 300)} is not a valid branch`);
  }
  return { kind: 'branch', branch };
}

export function branchName(name: string): string {
  if (name === '' || name.length > MAX_BRANCH_LENGTH) {
    throw new MalformedPayloadError('branch name is empty or too long');
  }
  return name;
}

/** The first line of a commit message, as the bundle comment. */
export function firstLine(message: string | null | undefined): string {
  if (!message) return '';
  const line = message.split(/\r?\n/, 1)[0] ?? '';
  return line.trim().slice(0, MAX_COMMENT_LENGTH);
}

/**
 * The head commit's time as the provider sent it (ISO 8601 with an offset), in UTC; undefined
 * when absent or not a time. What the lead time for changes counts from (docs/promotion.md).
 */
export function commitTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `{committedAt}` when there is a time, else nothing (optional fields stay absent). */
export const withTime = (committedAt: string | undefined) => (committedAt ? { committedAt } : {});

/** A delivery id as sent, when it fits the Bundle field. */
export function deliveryId(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const trimmed = id.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_DELIVERY_ID_LENGTH);
}

/** Why a push without branch updates builds nothing, from the kinds of refs it touched. */
export function noBranchReason(skipped: Set<string>): string {
  if (skipped.size === 0) return 'push without ref updates';
  return [...skipped].sort().join(', ');
}
