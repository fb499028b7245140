// The conditions of a StatusComponent's check (docs/resources.md, DESIGN §8 spec.check): each is
// `<operand> <op> <value>`, such as `[STATUS] == 200`, `[RESPONSE_TIME] < 500`,
// `[BODY].status == UP` or `[CERTIFICATE_EXPIRATION] > 72h`, and every one must hold. Parsed once
// (admission checks the same grammar with CONDITION_PATTERN), evaluated against each run's result.

export type CheckKind = 'http' | 'tcp' | 'dns' | 'service' | 'prometheus' | 'push';

export const OPERANDS = [
  'STATUS',
  'RESPONSE_TIME',
  'BODY',
  'CERTIFICATE_EXPIRATION',
  'CONNECTED',
  'DNS_RCODE',
  'DNS_ANSWER',
  'VALUE',
] as const;
export type Operand = (typeof OPERANDS)[number];
export type Op = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** What a run of a check found; a field is absent when the kind does not measure it. */
export interface CheckResult {
  status?: number;
  responseTimeMs?: number;
  body?: string;
  /** Until the server's certificate expires (https only). */
  certificateExpiresInMs?: number;
  connected?: boolean;
  dnsRcode?: string;
  dnsAnswer?: readonly string[];
  /** A Prometheus query's value. */
  value?: number;
}

/** The value a condition compares with, read once. */
export type Expected =
  { type: 'number'; value: number } | { type: 'boolean'; value: boolean } | { type: 'text'; value: string };

export interface CheckCondition {
  /** As written, trimmed: what a failure names. */
  text: string;
  operand: Operand;
  /** `[BODY].a.b[0]`'s path, as keys and indexes. */
  path: ReadonlyArray<string | number>;
  op: Op;
  expected: Expected;
}

const PATH_SEGMENT = String.raw`(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[[0-9]+\])`;
const VALUE = String.raw`(?:"(?:[^"\\]|\\.)*"|[^\s"]+)`;

/** The grammar as one regular expression (CEL's matches() at admission uses the same). */
export const CONDITION_PATTERN = String.raw`^\s*\[(${OPERANDS.join('|')})\](${PATH_SEGMENT}*)\s*(==|!=|<=|>=|<|>)\s*(${VALUE})\s*$`;
const CONDITION = new RegExp(CONDITION_PATTERN);

/** The operands each kind measures; `service` is an http check of a Service. */
const OPERANDS_OF: Record<CheckKind, readonly Operand[]> = {
  http: ['STATUS', 'RESPONSE_TIME', 'BODY', 'CERTIFICATE_EXPIRATION'],
  service: ['STATUS', 'RESPONSE_TIME', 'BODY'],
  tcp: ['CONNECTED', 'RESPONSE_TIME'],
  dns: ['DNS_RCODE', 'DNS_ANSWER', 'RESPONSE_TIME'],
  prometheus: ['VALUE', 'RESPONSE_TIME'],
  push: ['RESPONSE_TIME'],
};

/** What a check with no conditions asks; prometheus needs a threshold or a [VALUE] condition. */
const DEFAULTS: Partial<Record<CheckKind, string>> = {
  http: '[STATUS] < 400',
  service: '[STATUS] < 400',
  tcp: '[CONNECTED] == true',
  dns: '[DNS_RCODE] == NOERROR',
};

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration (`500ms`, `72h`, `1.5s`) in milliseconds; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * DURATION_MS[match[2]!]! : undefined;
}

function expectedOf(text: string): Expected {
  if (text.startsWith('"')) return { type: 'text', value: JSON.parse(text) as string };
  if (text === 'true' || text === 'false') return { type: 'boolean', value: text === 'true' };
  if (/^-?[0-9]+(?:\.[0-9]+)?$/.test(text)) return { type: 'number', value: Number(text) };
  const ms = durationMs(text);
  if (ms !== undefined) return { type: 'number', value: ms };
  return { type: 'text', value: text };
}

const NUMERIC: ReadonlySet<Operand> = new Set(['STATUS', 'RESPONSE_TIME', 'CERTIFICATE_EXPIRATION', 'VALUE']);

export class CheckConditionError extends Error {
  override name = 'CheckConditionError';
}

/** One condition, read for a check of `kind`; throws CheckConditionError naming what is wrong. */
export function parseCondition(text: string, kind: CheckKind): CheckCondition {
  const match = CONDITION.exec(text);
  if (!match)
    throw new CheckConditionError(
      `condition ${JSON.stringify(text)} is not <operand> <op> <value> with an operand among ${OPERANDS.map((o) => `[${o}]`).join(', ')}`,
    );
  const [, operand, rawPath, op, rawValue] = match as unknown as [string, Operand, string, Op, string];
  const trimmed = text.trim();
  if (!OPERANDS_OF[kind].includes(operand))
    throw new CheckConditionError(
      `condition ${JSON.stringify(trimmed)}: a ${kind} check does not measure [${operand}] (it measures ${OPERANDS_OF[kind].map((o) => `[${o}]`).join(', ')})`,
    );
  if (rawPath && operand !== 'BODY')
    throw new CheckConditionError(`condition ${JSON.stringify(trimmed)}: only [BODY] takes a path`);
  let expected: Expected;
  try {
    expected = expectedOf(rawValue);
  } catch {
    throw new CheckConditionError(`condition ${JSON.stringify(trimmed)}: ${rawValue} is not a quoted string`);
  }
  if (NUMERIC.has(operand) && expected.type !== 'number')
    throw new CheckConditionError(
      `condition ${JSON.stringify(trimmed)}: [${operand}] compares with a number or a duration, not ${rawValue}`,
    );
  if (operand === 'CONNECTED' && (expected.type !== 'boolean' || (op !== '==' && op !== '!=')))
    throw new CheckConditionError(
      `condition ${JSON.stringify(trimmed)}: [CONNECTED] is == or != true or false`,
    );
  const path = [...rawPath.matchAll(/\.([^.[]+)|\[([0-9]+)\]/g)].map(
    (m) => (m[1] ?? Number(m[2])) as string | number,
  );
  return { text: trimmed, operand, path, op, expected };
}

/**
 * A check's conditions: those written, else its kind's default (a prometheus check's threshold
 * is a [VALUE] condition). Throws CheckConditionError for the first that is wrong.
 */
export function checkConditions(
  kind: CheckKind,
  written: readonly string[] = [],
  threshold?: { op: Op; value: number },
): CheckCondition[] {
  const texts = [...written];
  if (threshold) texts.push(`[VALUE] ${threshold.op} ${threshold.value}`);
  if (texts.length === 0) {
    const fallback = DEFAULTS[kind];
    if (fallback) texts.push(fallback);
    else if (kind === 'prometheus')
      throw new CheckConditionError('a prometheus check needs a threshold or a condition on [VALUE]');
  }
  return texts.map((text) => parseCondition(text, kind));
}

/** What the operand measured in this run: a number, a boolean, text, a list of text or nothing. */
function actualOf(condition: CheckCondition, result: CheckResult): unknown {
  switch (condition.operand) {
    case 'STATUS':
      return result.status;
    case 'RESPONSE_TIME':
      return result.responseTimeMs;
    case 'CERTIFICATE_EXPIRATION':
      return result.certificateExpiresInMs;
    case 'CONNECTED':
      return result.connected;
    case 'DNS_RCODE':
      return result.dnsRcode;
    case 'DNS_ANSWER':
      return result.dnsAnswer;
    case 'VALUE':
      return result.value;
    case 'BODY':
      return condition.path.length === 0 ? result.body : bodyAt(result.body, condition.path);
  }
}

function bodyAt(body: string | undefined, path: CheckCondition['path']): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body ?? '');
  } catch {
    return undefined;
  }
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value =
      typeof key === 'number'
        ? Array.isArray(value)
          ? value[key]
          : undefined
        : (value as Record<string, unknown>)[key];
  }
  return value;
}

const NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

/**
 * Numbers (and text that is a number, from a JSON body) compare as numbers; anything else only
 * by == and !=, as text. Nothing measured satisfies only !=.
 */
function compare(actual: unknown, op: Op, expected: Expected): boolean {
  if (actual === undefined || actual === null) return op === '!=';
  const left =
    typeof actual === 'string' && expected.type === 'number' && NUMBER.test(actual) ? Number(actual) : actual;
  if (typeof left === 'number' && expected.type === 'number') {
    const right = expected.value;
    return {
      '==': left === right,
      '!=': left !== right,
      '<': left < right,
      '<=': left <= right,
      '>': left > right,
      '>=': left >= right,
    }[op];
  }
  const same = (typeof left === 'object' ? JSON.stringify(left) : String(left)) === String(expected.value);
  return op === '==' ? same : op === '!=' ? !same : false;
}

/** Whether the condition holds for this run. [DNS_ANSWER] == x holds when some answer is x. */
export function holds(condition: CheckCondition, result: CheckResult): boolean {
  const actual = actualOf(condition, result);
  if (Array.isArray(actual)) {
    const some = actual.some((answer) => compare(answer, '==', condition.expected));
    if (condition.op === '==') return some;
    if (condition.op === '!=') return !some;
    return actual.some((answer) => compare(answer, condition.op, condition.expected));
  }
  return compare(actual, condition.op, condition.expected);
}

/** How a failed condition reads in status.check.message: the condition and what was measured. */
export function failureMessage(condition: CheckCondition, result: CheckResult): string {
  const actual = actualOf(condition, result);
  const shown =
    actual === undefined
      ? 'nothing'
      : typeof actual === 'string'
        ? JSON.stringify(actual.length > 80 ? `${actual.slice(0, 80)}…` : actual)
        : JSON.stringify(actual);
  const operand = condition.text.slice(0, condition.text.search(/\s*(==|!=|<=|>=|<|>)/));
  return `${condition.text} failed: ${operand} was ${shown}`;
}

/** The first condition that does not hold, as its failure message; undefined when all hold. */
export function firstFailure(conditions: readonly CheckCondition[], result: CheckResult): string | undefined {
  const failed = conditions.find((condition) => !holds(condition, result));
  return failed && failureMessage(failed, result);
}
