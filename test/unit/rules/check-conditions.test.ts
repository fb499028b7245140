// The conditions of a StatusComponent's check: read at admission and by the operator, evaluated
// against each run; a failure names the condition and what was measured.
import { describe, expect, it } from '@jest/globals';
import {
  CONDITION_PATTERN,
  CheckConditionError,
  checkConditions,
  durationMs,
  firstFailure,
  holds,
  parseCondition,
  type CheckKind,
  type CheckResult,
} from '../../../rules/check-conditions.ts';

const holdsFor = (kind: CheckKind, text: string, result: CheckResult) =>
  holds(parseCondition(text, kind), result);

describe('check conditions', () => {
  it.each<[string, CheckResult, boolean]>([
    ['[STATUS] == 200', { status: 200 }, true],
    ['[STATUS] == 200', { status: 502 }, false],
    ['[STATUS] < 400', { status: 399 }, true],
    ['[STATUS] < 400', { status: 400 }, false],
    ['[RESPONSE_TIME] < 500', { responseTimeMs: 120 }, true],
    ['[RESPONSE_TIME] < 500ms', { responseTimeMs: 700 }, false],
    ['[RESPONSE_TIME] <= 1.5s', { responseTimeMs: 1500 }, true],
    ['[CERTIFICATE_EXPIRATION] > 72h', { certificateExpiresInMs: 80 * 3_600_000 }, true],
    ['[CERTIFICATE_EXPIRATION] > 72h', { certificateExpiresInMs: 24 * 3_600_000 }, false],
    ['[CERTIFICATE_EXPIRATION] > 72h', {}, false],
    ['[BODY] == pong', { body: 'pong' }, true],
    ['[BODY] != "all good"', { body: 'all good' }, false],
    ['[BODY].status == UP', { body: '{"status":"UP"}' }, true],
    ['[BODY].status == UP', { body: '{"status":"DOWN"}' }, false],
    ['[BODY].status == UP', { body: 'not json' }, false],
    ['[BODY].checks[1].ok == true', { body: '{"checks":[{"ok":false},{"ok":true}]}' }, true],
    ['[BODY].queue.depth < 10', { body: '{"queue":{"depth":3}}' }, true],
    ['[BODY].queue.depth < 10', { body: '{"queue":{"depth":"30"}}' }, false],
    ['[BODY].missing != x', { body: '{}' }, true],
  ])('http: %s with %j is %s', (text, result, expected) => {
    expect(holdsFor('http', text, result)).toBe(expected);
  });

  it('tcp, dns and prometheus operands', () => {
    expect(holdsFor('tcp', '[CONNECTED] == true', { connected: true })).toBe(true);
    expect(holdsFor('tcp', '[CONNECTED] == true', { connected: false })).toBe(false);
    expect(holdsFor('dns', '[DNS_RCODE] == NOERROR', { dnsRcode: 'NXDOMAIN' })).toBe(false);
    expect(holdsFor('dns', '[DNS_ANSWER] == 10.0.0.7', { dnsAnswer: ['10.0.0.6', '10.0.0.7'] })).toBe(true);
    expect(holdsFor('dns', '[DNS_ANSWER] != 10.0.0.7', { dnsAnswer: ['10.0.0.7'] })).toBe(false);
    expect(holdsFor('prometheus', '[VALUE] <= 0.05', { value: 0.01 })).toBe(true);
    expect(holdsFor('prometheus', '[VALUE] <= 0.05', { value: 0.2 })).toBe(false);
  });

  it('falls back to each kind’s default, and a threshold is a [VALUE] condition', () => {
    const texts = (kind: CheckKind, written?: string[], threshold?: { op: '>'; value: number }) =>
      checkConditions(kind, written, threshold).map((c) => c.text);
    expect(texts('http')).toEqual(['[STATUS] < 400']);
    expect(texts('service')).toEqual(['[STATUS] < 400']);
    expect(texts('tcp')).toEqual(['[CONNECTED] == true']);
    expect(texts('dns')).toEqual(['[DNS_RCODE] == NOERROR']);
    expect(texts('http', ['[STATUS] == 204'])).toEqual(['[STATUS] == 204']);
    expect(texts('prometheus', [], { op: '>', value: 0.99 })).toEqual(['[VALUE] > 0.99']);
    expect(texts('push')).toEqual([]);
    expect(() => checkConditions('prometheus')).toThrow('a prometheus check needs a threshold');
  });

  it.each([
    ['STATUS == 200', 'is not <operand> <op> <value>'],
    ['[STATUS] = 200', 'is not <operand> <op> <value>'],
    ['[STATUS] == ', 'is not <operand> <op> <value>'],
    ['[STATUS] == OK', '[STATUS] compares with a number or a duration, not OK'],
    ['[DNS_RCODE] == NOERROR', 'a http check does not measure [DNS_RCODE]'],
    ['[STATUS].code == 200', 'only [BODY] takes a path'],
    ['[BODY] == "unterminated', 'is not <operand> <op> <value>'],
  ])('refuses %s, naming what is wrong', (text, message) => {
    expect(() => parseCondition(text, 'http')).toThrow(CheckConditionError);
    expect(() => parseCondition(text, 'http')).toThrow(message);
  });

  it('refuses [CONNECTED] with anything but == or != true or false', () => {
    expect(() => parseCondition('[CONNECTED] > true', 'tcp')).toThrow(
      '[CONNECTED] is == or != true or false',
    );
  });

  it('admission’s pattern takes what the parser takes', () => {
    const pattern = new RegExp(CONDITION_PATTERN);
    for (const text of ['[STATUS] == 200', '[BODY].a.b[0] == "x y"', '[CERTIFICATE_EXPIRATION] > 72h'])
      expect(pattern.test(text)).toBe(true);
    for (const text of ['[STATUS] = 200', 'STATUS == 200', '[NOPE] == 1'])
      expect(pattern.test(text)).toBe(false);
  });

  it('names the failing condition and what was measured', () => {
    const conditions = checkConditions('http', ['[STATUS] == 200', '[BODY].status == UP']);
    expect(firstFailure(conditions, { status: 200, body: '{"status":"UP"}' })).toBeUndefined();
    expect(firstFailure(conditions, { status: 502, body: '' })).toBe(
      '[STATUS] == 200 failed: [STATUS] was 502',
    );
    expect(firstFailure(conditions, { status: 200, body: '{"status":"DOWN"}' })).toBe(
      '[BODY].status == UP failed: [BODY].status was "DOWN"',
    );
  });

  it('reads durations', () => {
    expect([
      durationMs('500ms'),
      durationMs('72h'),
      durationMs('1.5s'),
      durationMs('2d'),
      durationMs('5'),
    ]).toEqual([500, 72 * 3_600_000, 1500, 2 * 86_400_000, undefined]);
  });
});
