// Text from outside keeps no terminal controls where Slipway stores it, and shows them escaped
// where the CLI prints (rules/text.ts, rules/new-bundle.ts, cli/print.ts).
import { describe, expect, it } from '@jest/globals';
import { table } from '../../../cli/print.ts';
import { newBundle } from '../../../rules/new-bundle.ts';
import { escapeControlCharacters, withoutControlCharacters } from '../../../rules/text.ts';

const hostile = 'Fix cart\u001b[2J\u001b]0;owned\u0007 \u202egnp.exe\u202c\tdone\u0085';

describe('control characters', () => {
  it('are removed from stored text; tabs and line breaks become spaces', () => {
    expect(withoutControlCharacters(hostile)).toBe('Fix cart[2J]0;owned gnp.exe done');
    expect(withoutControlCharacters('plain, ünïcode and emoji 🚀')).toBe('plain, ünïcode and emoji 🚀');
  });

  it('are shown escaped when printed', () => {
    expect(escapeControlCharacters(hostile)).toBe(
      'Fix cart\\x1b[2J\\x1b]0;owned\\x07 \\u202egnp.exe\\u202c\\x09done\\x85',
    );
  });

  it('never reach a Bundle comment, whoever makes the bundle', () => {
    const made = newBundle({
      name: 'shop-1',
      namespace: 'team',
      project: { name: 'shop' },
      source: { git: { commit: 'a'.repeat(40) } },
      trigger: { type: 'Manual' },
      comment: hostile,
    });
    expect(made.spec.comment).toBe('Fix cart[2J]0;owned gnp.exe done');
  });

  it("never reach the terminal through kubectl slipway's tables", () => {
    const printed = table([{ comment: hostile }], [{ header: 'COMMENT', value: (r) => r.comment }], false);
    // eslint-disable-next-line no-control-regex -- looking for control characters
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/u);
    expect(printed).toContain('\\x1b[2J');
  });
});
