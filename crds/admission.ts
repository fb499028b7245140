// Admission checks that keep Slipway from acting for someone beyond their own rights (a confused
// deputy): the operator rolls images into the Deployment an Environment names and reads the
// Secrets an Environment or Project names, with its own, wider permissions. So whoever creates
// or changes such a reference must be allowed to do that themselves — checked by the API server
// with ValidatingAdmissionPolicy and CEL's `authorizer` against the requesting user (no webhook
// server, as Kubernetes documents). Deciding what an Environment runs is a right of its own, the
// custom verb `deploy` on environments.slipway.dev: a Bundle or Webhook naming an Environment
// needs it on that one, and what sets a project's later builds (a Manual bundle, whose build
// settings pushes copy; the repository URL) needs it on all of the namespace's. A reference that
// does not change is not checked again, so objects that exist keep working and metadata or
// status writes pass.
import { deployDecision, FREEZE, listSecrets, previewSettings, type Extra } from './admission-extras.ts';
import { DEPLOY_VERB } from './admission-verbs.ts';
import { GROUP } from './common.ts';
import { MAX_NOTIFICATIONS } from './project.ts';
import { MAX_FORK_SECRETS } from './previews-settings.ts';
import { MAX_STATUS_WEBHOOKS } from './status.ts';
import { writersBinding, writersConfigMap, writersPolicy } from './writers.ts';

interface Check {
  /** What the reference is, for the variable names. */
  name: string;
  /** CEL: the referenced name in `object` (the new version), or '' when there is none. */
  now: string;
  /** The same in `oldObject`. */
  before: string;
  group: string;
  resource: string;
  verb: string;
  /** Check the verb on every object of the resource in the namespace, not on the one named. */
  anyName?: boolean;
  /** CEL: the refusal, naming the missing permission. */
  message: string;
  /**
   * Other fields that change what the reference is used for: a change of any of them checks the
   * reference again, even when its name stays (a new repository host for the same password, a
   * new project deploying into the same Deployment, a new volume for the same database dump).
   */
  context: ContextField[];
}

/** A field's path, or a CEL expression (of `object` or `oldObject`) giving a string for it. */
type ContextField = string[] | { cel: (root: 'object' | 'oldObject') => string };

/** A CEL expression for `path` under `root` that is '' when any step of it is absent. */
function optionalName(root: 'object' | 'oldObject', path: string[]): string {
  const guards = path.slice(0, -1).map((_, i) => `has(${[root, ...path.slice(0, i + 1)].join('.')})`);
  const value = [root, ...path].join('.');
  return `${root} != null && ${[...guards, `has(${value})`].join(' && ')} ? ${value} : ''`;
}

function reference(path: string[]): Pick<Check, 'now' | 'before'> {
  return { now: optionalName('object', path), before: optionalName('oldObject', path) };
}

/** The context fields of `root` as one string, to compare old and new in one step. */
function contextOf(root: 'object' | 'oldObject', fields: ContextField[]): string {
  if (fields.length === 0) return "''";
  return fields.map((f) => `(${Array.isArray(f) ? optionalName(root, f) : f.cel(root)})`).join(" + '|' + ");
}

/** A boolean field as a string for the context ('true' or ''). */
const flag = (path: string[]): ContextField => ({
  cel: (root) =>
    `${optionalName(root, path).replace(/ \? .*$/, '')} && ${[root, ...path].join('.')} ? 'true' : ''`,
});

const forbidden = (kind: string, field: string, verb: string, what: string, variable: string) =>
  `'${kind} ' + object.metadata.name + ': you may not ${verb} ${what} ' + variables.${variable} + ` +
  `' in namespace ' + request.namespace + ', so ${field} may not name it (Slipway would use it for you). ` +
  `Ask for "${verb}" on it, or name one you may ${verb}.'`;

/** A Secret that `kind`'s `field` names (`path` its name): its author must be able to read it. */
function secretCheck(kind: string, name: string, field: string, context: string[][]): Check {
  const path = ['spec', ...field.replace(/^spec\./, '').split('.'), 'name'];
  return {
    name,
    ...reference(path),
    group: '',
    resource: 'secrets',
    verb: 'get',
    message: forbidden(kind, field, 'get', 'Secret', name),
    context,
  };
}

const ENVIRONMENT_CHECKS: Check[] = [
  {
    name: 'deployment',
    ...reference(['spec', 'deploymentRef', 'name']),
    group: 'apps',
    resource: 'deployments',
    verb: 'patch',
    message: forbidden('Environment', 'spec.deploymentRef', 'patch', 'Deployment', 'deployment'),
    // Another project's pushes would deploy into it.
    context: [
      ['spec', 'projectRef', 'name'],
      ['spec', 'deploymentRef', 'container'],
    ],
  },
  {
    // The backup Job mounts it and writes the database's dump there.
    name: 'backupClaim',
    ...reference(['spec', 'backupStorage', 'persistentVolumeClaim', 'claimName']),
    group: '',
    resource: 'persistentvolumeclaims',
    verb: 'get',
    message: forbidden(
      'Environment',
      'spec.backupStorage.persistentVolumeClaim',
      'get',
      'PersistentVolumeClaim',
      'backupClaim',
    ),
    // Another database's dump would land in it.
    context: [
      ['spec', 'database', 'secretRef', 'name'],
      ['spec', 'projectRef', 'name'],
    ],
  },
  // The dump would land elsewhere (a volume its new author can read).
  secretCheck('Environment', 'databaseSecret', 'spec.database.secretRef', [
    ['spec', 'database', 'engine'],
    ['spec', 'backupStorage', 'persistentVolumeClaim', 'claimName'],
    ['spec', 'backupStorage', 'pathPrefix'],
    ['spec', 'projectRef', 'name'],
  ]),
];

export { DEPLOY_VERB };

const mayNotDeploy = (kind: string, variable: string, field: string) =>
  `'${kind} ' + object.metadata.name + ': you may not ${DEPLOY_VERB} to Environment ' + variables.${variable} + ` +
  `' in namespace ' + request.namespace + ', so ${field} may not name it (Slipway would deploy for you). ` +
  `Ask for "${DEPLOY_VERB}" on environments.${GROUP} ' + variables.${variable} + '.'`;

const mayNotDeployAll = (kind: string, what: string, why: string) =>
  `'${kind} ' + object.metadata.name + ': you may not ${DEPLOY_VERB} to the Environments of namespace ' + ` +
  `request.namespace + ', so you may not ${what} (${why}). Ask for "${DEPLOY_VERB}" on environments.${GROUP} in the namespace.'`;

const deployTo = (
  environment: string[],
): Pick<Check, 'group' | 'resource' | 'verb'> & ReturnType<typeof reference> => ({
  ...reference(environment),
  group: GROUP,
  resource: 'environments',
  verb: DEPLOY_VERB,
});

const BUNDLE_CHECKS: Check[] = [
  {
    name: 'environment',
    ...deployTo(['spec', 'deploy', 'environmentRef', 'name']),
    message: mayNotDeploy('Bundle', 'environment', 'spec.deploy.environmentRef'),
    context: [['spec', 'projectRef', 'name']],
  },
  {
    // A manual bundle sets what the project's later pushes build (webhook and upload bundles
    // copy its build settings) and so what they deploy, to any of the namespace's Environments.
    name: 'manual',
    now: `(${optionalName('object', ['spec', 'trigger', 'type'])}) == 'Manual' ? 'Manual' : ''`,
    before: `(${optionalName('oldObject', ['spec', 'trigger', 'type'])}) == 'Manual' ? 'Manual' : ''`,
    group: GROUP,
    resource: 'environments',
    verb: DEPLOY_VERB,
    anyName: true,
    message: mayNotDeployAll(
      'Bundle',
      'create a Manual bundle',
      'pushes of the project copy its build settings into every Environment they deploy to',
    ),
    context: [['spec', 'projectRef', 'name']],
  },
];

const WEBHOOK_CHECKS: Check[] = [
  {
    name: 'environment',
    ...deployTo(['spec', 'environmentRef', 'name']),
    message: mayNotDeploy('Webhook', 'environment', 'spec.environmentRef'),
    // Other pushes would deploy into it.
    context: [
      ['spec', 'projectRef', 'name'],
      ['spec', 'branch'],
      ['spec', 'matchMode'],
    ],
  },
];

const PROJECT_CHECKS: Check[] = [
  // The password would go to the new repository's host.
  secretCheck('Project', 'credentialsSecret', 'spec.repository.credentialsSecretRef', [
    ['spec', 'repository', 'url'],
  ]),
  // Another key of the same Secret would become the webhook secret (and shape the public URL).
  secretCheck('Project', 'webhookSecret', 'spec.webhookSecretRef', [['spec', 'webhookSecretRef', 'key']]),
  // The token would go to another API, or another key of the Secret would become the token.
  secretCheck('Project', 'reportToken', 'spec.report.tokenSecretRef', [
    ['spec', 'report', 'apiUrl'],
    ['spec', 'report', 'tokenSecretRef', 'key'],
    ['spec', 'repository', 'url'],
  ]),
  {
    // A preview runs pull requests' code in a copy of that Environment's Deployment (its env,
    // its Secrets): as much as deploying there.
    name: 'previewEnvironment',
    ...deployTo(['spec', 'previews', 'environmentRef', 'name']),
    message: mayNotDeploy('Project', 'previewEnvironment', 'spec.previews.environmentRef'),
    // Letting forks in widens who decides what runs there.
    context: [['spec', 'previews', 'forks']],
  },
  // The Ingress of every preview would serve it.
  secretCheck('Project', 'previewTls', 'spec.previews.tlsSecretRef', [['spec', 'previews', 'host']]),
  {
    // Slipway makes an Ingress for each preview's host: whoever sets the host could have made it.
    name: 'previewHost',
    ...reference(['spec', 'previews', 'host']),
    group: 'networking.k8s.io',
    resource: 'ingresses',
    verb: 'create',
    anyName: true,
    message:
      `'Project ' + object.metadata.name + ': you may not create Ingresses in namespace ' + request.namespace + ` +
      `', so spec.previews.host may not be set (Slipway makes an Ingress for each preview). Ask for "create" on ingresses.networking.k8s.io there.'`,
    context: [['spec', 'previews', 'ingressClassName']],
  },
  {
    // Where the project's code comes from decides what each of its Environments runs.
    name: 'repository',
    ...reference(['spec', 'repository', 'url']),
    group: GROUP,
    resource: 'environments',
    verb: DEPLOY_VERB,
    anyName: true,
    message: mayNotDeployAll(
      'Project',
      'set spec.repository.url, spec.provider, spec.requireSignature or spec.webhookSecretRef',
      'they decide which pushes and pull requests are built and deployed to the Environments of the project',
    ),
    // Which deliveries count as pushes: a Bitbucket project takes unsigned ones on the URL; who
    // holds the webhook secret signs deliveries (pushes, and pull requests with their fork flag).
    context: [
      ['spec', 'provider'],
      flag(['spec', 'requireSignature']),
      ['spec', 'webhookSecretRef', 'name'],
      ['spec', 'webhookSecretRef', 'key'],
    ],
  },
];

function policy(name: string, resource: string, checks: Check[], ...extras: Extra[]) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: [GROUP], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: [resource] },
        ],
      },
      variables: checks
        .flatMap((c) => [
          { name: c.name, expression: c.now },
          { name: `${c.name}Before`, expression: c.before },
          { name: `${c.name}Context`, expression: contextOf('object', c.context) },
          { name: `${c.name}ContextBefore`, expression: contextOf('oldObject', c.context) },
        ])
        .concat(extras.flatMap((e) => e.variables)),
      validations: checks
        .map((c) => ({
          expression:
            `variables.${c.name} == '' || ` +
            `(variables.${c.name} == variables.${c.name}Before && variables.${c.name}Context == variables.${c.name}ContextBefore) || ` +
            `authorizer.group('${c.group}').resource('${c.resource}').namespace(request.namespace)` +
            (c.anyName ? '' : `.name(variables.${c.name})`) +
            `.check('${c.verb}').allowed()`,
          messageExpression: c.message,
          reason: 'Forbidden',
        }))
        .concat(extras.flatMap((e) => e.validations)),
    },
  };
}

function binding(policyName: string) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: policyName },
    spec: { policyName, validationActions: ['Deny'] },
  };
}

export const ENVIRONMENT_POLICY = 'slipway-environment-references';
export const PROJECT_POLICY = 'slipway-project-references';
export const BUNDLE_POLICY = 'slipway-bundle-references';
export const WEBHOOK_POLICY = 'slipway-webhook-references';
export const STATUS_PAGE_POLICY = 'slipway-statuspage-references';

/** One policy with its binding and, for a policy with a parameter, the parameter's object. */
export interface AdmissionPolicy {
  policy: { metadata: { name: string }; spec: unknown };
  binding: { metadata: { name: string }; spec: unknown };
  params?: { metadata: { name: string; namespace: string } };
}

/** The policies, each with its binding, in the order they are applied. */
export function admissionPolicies(): AdmissionPolicy[] {
  const plain = (p: ReturnType<typeof policy>) => ({ policy: p, binding: binding(p.metadata.name) });
  return [
    plain(
      policy(
        ENVIRONMENT_POLICY,
        'environments',
        ENVIRONMENT_CHECKS,
        deployDecision('Environment', 'suspend', FREEZE),
        deployDecision('Environment', 'promoteFrom', 'it rolls out what another Environment runs'),
      ),
    ),
    plain(
      policy(
        PROJECT_POLICY,
        'projects',
        PROJECT_CHECKS,
        listSecrets('Project', ['notifications'], MAX_NOTIFICATIONS),
        listSecrets('Project', ['previews', 'forkSecrets'], MAX_FORK_SECRETS, 'name'),
        deployDecision('Project', 'suspend', FREEZE),
        previewSettings(),
      ),
    ),
    plain(policy(BUNDLE_POLICY, 'bundles', BUNDLE_CHECKS)),
    plain(policy(WEBHOOK_POLICY, 'webhooks', WEBHOOK_CHECKS)),
    plain(
      policy(
        STATUS_PAGE_POLICY,
        'statuspages',
        [],
        listSecrets('StatusPage', ['webhooks'], MAX_STATUS_WEBHOOKS),
      ),
    ),
    { policy: writersPolicy(), binding: writersBinding(), params: writersConfigMap() },
  ];
}
