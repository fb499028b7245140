// Every API permission the operator uses, and why: the single list the Helm chart's Role and
// the least-privilege test share. Adding a call to the operator means adding its rule here.
import type { PolicyRule } from '../lib/rbac.ts';

/** Granted cluster-wide, or in SLIPWAY_WATCH_NAMESPACE only when one is set. */
export const operatorRules: readonly PolicyRule[] = [
  {
    apiGroups: ['slipway.dev'],
    resources: ['projects', 'environments', 'webhooks', 'bundles'],
    verbs: ['get', 'list', 'watch'],
    why: 'informers of the kinds the operator reconciles',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['statuspages', 'statuscomponents', 'statusnotices'],
    verbs: ['get', 'list', 'watch', 'patch'],
    why: "status informers; a component's or notice's id into spec.id, the id high-water mark on the StatusPage",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['statuspages/status', 'statuscomponents/status', 'statusnotices/status'],
    verbs: ['patch'],
    why: 'status ids, notice state and conditions',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['bundles'],
    verbs: ['create', 'delete', 'patch'],
    why: "bundle history pruning (Project spec.bundleHistoryLimit); a Rollback bundle after a failed rollout (Environment spec.autoRollback); a bundle's shard label when its Project moved to another shard",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['previews'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    why: "an informer on pull requests' previews; delete one whose Project stopped previewing or that sat idle past previews.idleHours; the finalizer slipway.dev/preview-comment, so a removal is told on the pull request first; the periodic look at the provider's open pull requests makes, updates and removes them as deliveries would",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['previews/status'],
    verbs: ['patch'],
    why: "a preview's phase, URL, bundle and conditions",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['promotions'],
    verbs: ['get', 'list', 'watch', 'create'],
    why: "an informer on promotions; the Promotion of each bundle that becomes Ready on an Environment another's spec.promoteFrom names",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['promotions/status'],
    verbs: ['patch'],
    why: "a promotion's phase, bundle, image, gates, counted approvals and conditions",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['previews/finalizers'],
    verbs: ['update'],
    why: 'owner references with blockOwnerDeletion on the bundles and copies a Preview owns',
  },
  {
    apiGroups: [''],
    resources: ['services'],
    verbs: ['list', 'create', 'patch', 'delete'],
    why: "a preview's copies of the Services that select its environment's pods (server-side apply); deleted when the preview may not be served or no longer needs one",
  },
  {
    apiGroups: ['networking.k8s.io'],
    resources: ['ingresses'],
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
    why: "a preview's Ingress for its host (server-side apply), after reading that no Ingress of its name is someone else's; deleted when the preview may not be served",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['environments'],
    verbs: ['deploy'],
    why: 'the admission policy slipway-bundle-references lets a Bundle name an Environment only for those allowed to deploy to it: the Rollback bundles of spec.autoRollback, and the bundles of Promotions',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['projects/status', 'environments/status', 'webhooks/status', 'bundles/status'],
    verbs: ['patch'],
    why: 'status, conditions and observedGeneration (merge patches of /status)',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['projects/finalizers', 'bundles/finalizers'],
    verbs: ['update'],
    why: 'owner references with blockOwnerDeletion on generated Secrets (Project) and backup Jobs (Bundle)',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get', 'create'],
    why: "read the webhook secret to derive the URL token; generate one when a Project references none; an Environment's database Secret has the keys the backup reads; the clone and registry credentials a build needs, copied into the build namespace",
  },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    why: 'backup Jobs; delete the unfinished backup of a superseded bundle; label the ended Jobs of a finished bundle slipway.dev/finished (no longer watched)',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list', 'watch'],
    why: "an informer on the pods labelled slipway.dev/bundle (backup Jobs', rollouts') that have not ended: what blocks them (unschedulable, image pulls, config errors, crash loops) in the Bundle's condition within seconds; a failed Job's last log lines",
  },
  {
    apiGroups: [''],
    resources: ['events'],
    verbs: ['list'],
    why: 'a Job without a pod after a few seconds: its FailedCreate Events say why (quota, Pod Security)',
  },
  {
    apiGroups: [''],
    resources: ['persistentvolumeclaims'],
    verbs: ['get'],
    why: "an Environment's backup claim exists (Ready=False with BackupClaimNotFound until it does)",
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['roles', 'rolebindings'],
    verbs: ['get', 'create', 'update', 'delete'],
    why: "the Role and RoleBinding letting the gateway get exactly the namespace's webhook Secrets (SLIPWAY_GATEWAY_SERVICE_ACCOUNT)",
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    why: "watch rollouts; set the environment container's image and the bundle annotation; a preview's copy of its environment's Deployment (server-side apply), deleted when the preview may not be served or its environment changed",
  },
  {
    apiGroups: ['events.k8s.io'],
    resources: ['events'],
    verbs: ['create', 'patch'],
    why: 'an Event for every step (patch bumps the count of a repeated event)',
  },
];

/** Granted in the build namespace (operator.buildNamespace), where every build Job runs (docs/adr/0004). */
export const buildNamespaceRules: readonly PolicyRule[] = [
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    why: "build Jobs; delete a superseded bundle's unfinished build and a deleted bundle's build (its finalizer); label a finished bundle's ended build slipway.dev/finished (no longer watched)",
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list', 'watch'],
    why: "an informer on the build pods that have not ended: what blocks them in the Bundle's condition; a failed build's last log lines; the digest a succeeded build's push container reported",
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['create', 'delete'],
    why: "the copies of a build's clone and registry credentials (or the registry credentials minted for it), beside its Job; deleted once the build has ended or is stopped, and with its bundle",
  },
  {
    apiGroups: [''],
    resources: ['events'],
    verbs: ['list'],
    why: 'a build Job without a pod after a few seconds: its FailedCreate Events say why (quota, Pod Security)',
  },
  {
    apiGroups: ['networking.k8s.io'],
    resources: ['networkpolicies'],
    verbs: ['create', 'patch'],
    why: 'the NetworkPolicy around every build (slipway-builds, server-side apply): its one owner, written at start and whenever the cluster ranges it cuts out change',
  },
];

/**
 * Granted cluster-wide unless the release is confined to one namespace (watchNamespace): the
 * cluster's own ranges, which outbound calls never reach (outbound/cluster-ranges.ts).
 */
export const clusterRangeRules: readonly PolicyRule[] = [
  {
    apiGroups: ['networking.k8s.io'],
    resources: ['servicecidrs'],
    verbs: ['list'],
    why: "the cluster's Service ranges: commit statuses, notifications and subscriber webhooks never connect there",
  },
  {
    apiGroups: [''],
    resources: ['nodes'],
    verbs: ['list'],
    why: "each node's pod ranges and addresses (the kubelet, NodePorts): outbound calls never connect there",
  },
];

/** Granted in the operator's own namespace (POD_NAMESPACE) when leader election is on. */
export const leaderElectionRules: readonly PolicyRule[] = [
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'create', 'update'],
    why: 'leader election through a Lease',
  },
];
