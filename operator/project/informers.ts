// The Project kind's cache: every Project (a slug is claimed cluster-wide; shard.ts), by slug.
import type { ProjectObject } from '../../crds/index.ts';
import { effectiveSlug } from '../../rules/webhook-url.ts';
import { INDEX, type InformerScope } from '../indexes.ts';

export const projectInformers = (scope: InformerScope) => ({
  projects: scope.kind<ProjectObject>('Project').addIndex(INDEX.slug, (p) => [effectiveSlug(p)]),
});
