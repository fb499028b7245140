// Reading a command's arguments: positionals, durations, and the kind a word names.
import { describe, expect, it } from '@jest/globals';
import { duration, kindCompletions, kindOf, positionals } from '../../../../cli/commands/command.ts';
import { UsageError } from '../../../../cli/errors.ts';

describe('command arguments', () => {
  it('takes a kind as kubectl does: singular, plural, short name, any case (and env)', () => {
    const kinds = ['Project', 'Environment', 'Bundle'] as const;
    for (const word of ['project', 'Projects', 'swproj']) expect(kindOf(word, kinds)).toBe('Project');
    for (const word of ['environment', 'environments', 'env', 'swenv'])
      expect(kindOf(word, kinds)).toBe('Environment');
    expect(kindOf('swb', kinds)).toBe('Bundle');
    expect(kindCompletions(kinds)).toEqual(['project', 'environment', 'bundle']);
  });

  it('refuses a kind the command does not take, naming those it does', () => {
    expect(() => kindOf('webhook', ['Project', 'Environment'])).toThrow(
      new UsageError('"webhook" is not one of project, environment'),
    );
    expect(() => kindOf('bundle', ['Project'])).toThrow(new UsageError('"bundle" is not a project'));
  });

  it('says which positional is missing or extra, and reads durations', () => {
    expect(() => positionals(['project'], ['kind', 'name'])).toThrow(new UsageError('missing name'));
    expect(() => positionals(['a', 'b', 'c'], ['kind', 'name'])).toThrow(
      new UsageError('unexpected argument "c"'),
    );
    expect(duration('90s', 0)).toBe(90_000);
    expect(duration(undefined, 5)).toBe(5);
    expect(() => duration('soon', 0)).toThrow(UsageError);
  });
});
