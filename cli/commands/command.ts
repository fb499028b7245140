// The shape of one CLI command, and reading its positional arguments.
import type { ParseArgsConfig } from 'node:util';
import { kinds } from '../../crds/index.ts';
import type { KindName } from '../../lib/kube.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../errors.ts';

export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  summary: string;
  /** After "kubectl slipway ". */
  usage: string;
  /** Arguments and flags, and an example or two. */
  help?: string;
  options?: ParseArgsConfig['options'];
  /** Words completion offers after the command (subcommands, providers). */
  completions?: readonly string[];
  /** Resolves to the exit code (0 when undefined). */
  run(ctx: CliContext, args: string[], values: Values): Promise<number | void>;
}

/** Exactly the named positional arguments, or a usage error saying which is missing or extra. */
export function positionals(args: string[], names: readonly string[], optional = 0): string[] {
  const needed = names.length - optional;
  if (args.length < needed) throw new UsageError(`missing ${names[args.length]}`);
  if (args.length > names.length) throw new UsageError(`unexpected argument "${args[names.length]}"`);
  return args;
}

export const text = (values: Values, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

/** A duration flag ("90s", "10m", "1h", "30d", or seconds). */
export function duration(value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new UsageError(`"${value}" is not a duration (e.g. 90s, 10m, 1h, 30d)`);
  const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const unit = units[(match[2] ?? 's') as keyof typeof units];
  return Number(match[1]) * unit;
}

/** The words kubectl takes for a kind: singular, plural, short names (and "env"). */
function kindWords(kind: KindName): string[] {
  const def = kinds.find((k) => k.kind === kind)!;
  return [def.singular, def.plural, ...def.shortNames, ...(kind === 'Environment' ? ['env'] : [])];
}

/** The kind a word names, among those a command takes; else a usage error listing them. */
export function kindOf<K extends KindName>(word: string, allowed: readonly K[]): K {
  const lower = word.toLowerCase();
  const kind = allowed.find((k) => kindWords(k).includes(lower));
  if (kind) return kind;
  const names = allowed.map((k) => k.toLowerCase());
  throw new UsageError(`"${word}" is not ${names.length === 1 ? 'a' : 'one of'} ${names.join(', ')}`);
}

/** What completion offers for those kinds: their singular words. */
export const kindCompletions = (allowed: readonly KindName[]): string[] =>
  allowed.map((k) => k.toLowerCase());
