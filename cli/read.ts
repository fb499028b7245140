// Reading one Slipway object the user named: a missing one is the user's answer (exit 1), said
// with its kind and namespace, not an API error.
import { isNotFound, type KindName } from '../lib/kube.ts';
import type { CliContext } from './context.ts';
import { CommandError } from './errors.ts';

export async function readObject<T>(ctx: CliContext, kind: KindName, name: string): Promise<T> {
  try {
    return await ctx.slipway.get<T>(kind, ctx.namespace, name);
  } catch (error) {
    if (isNotFound(error)) throw new CommandError(`${kind} ${ctx.namespace}/${name} not found`);
    throw error;
  }
}
