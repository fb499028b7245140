// The Environment kind's caches: Environments by project, Deployment and promoteFrom source, and
// the Deployments they name (read by the bundle and preview controllers too).
import type { V1Deployment } from '@kubernetes/client-node';
import type { EnvironmentObject } from '../../crds/index.ts';
import { INDEX, ref, type InformerScope } from '../indexes.ts';

export const environmentInformers = (scope: InformerScope) => ({
  environments: scope
    .kind<EnvironmentObject>('Environment')
    .addIndex(INDEX.project, (e) => ref(e, e.spec?.projectRef?.name))
    .addIndex(INDEX.deployment, (e) => ref(e, e.spec?.deploymentRef?.name))
    .addIndex(INDEX.promoteFrom, (e) => ref(e, e.spec?.promoteFrom?.environmentRef?.name)),
  deployments: scope.builtin<V1Deployment>('apps/v1', 'deployments', scope.namespace),
});
