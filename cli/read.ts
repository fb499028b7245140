// Reading one Slipway object the user named: a missing one is the user's answer (exit 1), said
// with its kind and namespace, not an API error.
import type { Condition } from '../crds/index.ts';
import { findCondition } from '../lib/conditions.ts';
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

/** An object's Ready condition, what every listing shows. */
export const readyOf = (o: { status?: { conditions?: Condition[] } }): Condition | undefined =>
  findCondition(o.status?.conditions, 'Ready');

/** The objects of a kind in the namespace, or in every namespace with -A (listing commands). */
export function listInScope<T>(ctx: CliContext, kind: KindName): Promise<T[]> {
  return ctx.slipway.list<T>(kind, ctx.allNamespaces ? undefined : ctx.namespace);
}

/** What an empty listing says: "No previews in namespace shop." or "… in any namespace." */
export const noneInScope = (ctx: CliContext, plural: string): string =>
  ctx.allNamespaces ? `No ${plural} in any namespace.` : `No ${plural} in namespace ${ctx.namespace}.`;
