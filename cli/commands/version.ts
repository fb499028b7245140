// kubectl slipway version: this CLI's version, and the operator's as the cluster shows it to a
// namespace user: each Project records the version of the operator that last looked at it
// (status.operatorVersion), so reading the namespace's Projects needs no right outside it, and a
// sharded install shows each project's own shard.
import type { ProjectObject } from '../../crds/index.ts';
import { SLIPWAY_VERSION } from '../../lib/version.ts';
import { printObject } from '../print.ts';
import { positionals, type Command } from './command.ts';

export interface OperatorVersion {
  version: string;
  /** The namespace's projects that version last looked at. */
  projects: string[];
}

/** The operator versions the namespace's Projects record, each with its projects. */
export function operatorVersions(projects: readonly ProjectObject[]): OperatorVersion[] {
  const byVersion = new Map<string, string[]>();
  for (const p of projects) {
    const version = p.status?.operatorVersion;
    if (version) byVersion.set(version, [...(byVersion.get(version) ?? []), p.metadata.name]);
  }
  return [...byVersion].map(([version, names]) => ({ version, projects: names.sort() }));
}

export const versionCommand: Command = {
  name: 'version',
  summary: "print this CLI's version and the operator's, as the namespace's projects record it",
  usage: 'version [--client]',
  help: `The operator's version is read from the namespace's Projects (status.operatorVersion: the
operator that last looked at each), with read rights on Projects alone. --client prints only
this CLI's. Exit 1 when the namespace has no Project an operator has looked at.

Example: kubectl slipway -n shop version`,
  options: { client: { type: 'boolean' } },
  async run(ctx, args, values) {
    positionals(args, []);
    if (values.client === true) {
      if (!printObject(ctx, { client: SLIPWAY_VERSION })) ctx.out(`client: ${SLIPWAY_VERSION}`);
      return 0;
    }
    const projects = await ctx.slipway.list<ProjectObject>('Project', ctx.namespace);
    const operators = operatorVersions(projects);
    if (!printObject(ctx, { client: SLIPWAY_VERSION, operators })) {
      ctx.out(`client: ${SLIPWAY_VERSION}`);
      for (const o of operators) ctx.out(`operator: ${o.version} (projects ${o.projects.join(', ')})`);
    }
    if (operators.length > 0) return 0;
    ctx.err(
      projects.length === 0
        ? `namespace ${ctx.namespace} has no Project to read the operator's version from`
        : `no operator has looked at the Projects of namespace ${ctx.namespace} yet (is it running, and watching this namespace?)`,
    );
    return 1;
  },
};
