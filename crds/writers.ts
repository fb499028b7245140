// What only Slipway may write: the status of every slipway.dev kind (`*/status`, so kinds added
// later are covered too), which the operator and the gateway trust (the image a bundle deploys,
// the bundle an Environment runs, a project's webhook Secret), and the Bundles whose trigger says
// Slipway made them (a push, an upload), whose names are Slipway's to take. Anyone else is
// refused at admission, cluster admins included: Slipway's own identities are a parameter of the
// policy, a ConfigMap listing their user names, one a line (the chart's ServiceAccounts).
// Previews are Slipway's too, made from pull requests: people may change spec.approvedCommit
// alone, and only with the verb approve on previews (it builds a fork's code). Promotions are
// people's, but who asks and who approves is checked here too (promotion-admission.ts).
import { GROUP } from './common.ts';
import { previewSpec } from './preview.ts';
import { promotionRule, promotionValidations, promotionVariables } from './promotion-admission.ts';

export const WRITERS_POLICY = 'slipway-writers';
/** The ConfigMap (the policy's parameter) listing Slipway's identities under `users`. */
export const WRITERS_CONFIG_MAP = 'slipway-writers';
/** Where deploy/admission/ looks for it: the namespace of the chart's default install. */
export const WRITERS_NAMESPACE = 'slipway-system';
export const WRITERS_KEY = 'users';
/** The chart's ServiceAccounts in a release `slipway` in `slipway-system`: operator and gateway. */
export const DEFAULT_WRITERS = [
  `system:serviceaccount:${WRITERS_NAMESPACE}:slipway-operator`,
  `system:serviceaccount:${WRITERS_NAMESPACE}:slipway-gateway`,
];

/** The hex digits of the hash that ends a name only Slipway gives (rules/new-bundle.ts). */
export const BUNDLE_NAME_HASH_LENGTH = 12;

/**
 * A push's or upload's bundle name, `<project>-<12 hex digits>` (webhook-gateway/plan.ts): no one
 * else may take one first, whatever its trigger.
 */
export const PUSH_NAME_PATTERN = `-[0-9a-f]{${BUNDLE_NAME_HASH_LENGTH}}$`;

/** Bundle triggers that only Slipway creates (the gateway's pushes and uploads). */
export const SLIPWAY_TRIGGERS = ['Webhook', 'Upload', 'PullRequest', 'Promotion'] as const;

const slipwayTriggers = `[${SLIPWAY_TRIGGERS.map((t) => `'${t}'`).join(', ')}]`;
/** The end of a refusal, inside its open CEL string literal. */
const whoMay =
  ` may write it (the users in ConfigMap ${WRITERS_CONFIG_MAP}, key ${WRITERS_KEY}, of the policy ` +
  `${WRITERS_POLICY}); ' + request.userInfo.username + ' is not one of them.'`;

export function writersPolicy() {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: WRITERS_POLICY },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [GROUP],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['*/status'],
          },
          { apiGroups: [GROUP], apiVersions: ['*'], operations: ['CREATE'], resources: ['bundles'] },
          {
            apiGroups: [GROUP],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['previews'],
          },
          promotionRule,
        ],
      },
      variables: [
        {
          name: 'writers',
          expression:
            `params != null && has(params.data) && '${WRITERS_KEY}' in params.data ? ` +
            `params.data['${WRITERS_KEY}'].split('\\n').map(u, u.trim()).filter(u, u != '') : []`,
        },
        { name: 'slipway', expression: 'request.userInfo.username in variables.writers' },
        // An empty subResource is left out of the request, so has() comes first.
        { name: 'status', expression: "has(request.subResource) && request.subResource == 'status'" },
        { name: 'bundle', expression: "!variables.status && request.resource.resource == 'bundles'" },
        { name: 'preview', expression: "!variables.status && request.resource.resource == 'previews'" },
        {
          name: 'trigger',
          expression:
            'variables.bundle && has(object.spec) && has(object.spec.trigger) && ' +
            "has(object.spec.trigger.type) ? object.spec.trigger.type : ''",
        },
        // A Preview's spec as Slipway delivered it is unchanged (spec.approvedCommit aside).
        { name: 'deliveredSpecKept', expression: deliveredSpecKept() },
        {
          name: 'approvalChanged',
          expression:
            "variables.preview && request.operation == 'UPDATE' && " +
            `(${fieldOf('object', 'approvedCommit')}) != (${fieldOf('oldObject', 'approvedCommit')})`,
        },
        ...promotionVariables,
      ],
      validations: [
        {
          expression: '!variables.status || variables.slipway',
          messageExpression:
            `'the status of ' + request.resource.resource + '.${GROUP} ' + object.metadata.name + ` +
            `' is written by Slipway alone (the operator acts on it): only the identities of Slipway${whoMay}`,
          reason: 'Forbidden',
        },
        {
          expression: `!variables.bundle || !object.metadata.name.matches('${PUSH_NAME_PATTERN}') || variables.slipway`,
          messageExpression:
            `'Bundle ' + object.metadata.name + ': a name ending in - and 12 hexadecimal digits is that of a ` +
            `push or upload, which Slipway alone names; choose another name. Only the identities of Slipway${whoMay}`,
          reason: 'Forbidden',
        },
        {
          expression: `!(variables.trigger in ${slipwayTriggers}) || variables.slipway`,
          messageExpression:
            `'Bundle ' + object.metadata.name + ': a bundle with trigger ' + variables.trigger + ` +
            `' is made by Slipway alone (its name belongs to a push or upload); create a Manual or ` +
            `Rollback bundle instead (kubectl slipway build, rollback). Only the identities of Slipway${whoMay}`,
          reason: 'Forbidden',
        },
        {
          expression:
            "!variables.preview || variables.slipway || (request.operation == 'UPDATE' && variables.deliveredSpecKept)",
          messageExpression:
            `'Preview ' + object.metadata.name + ': a Preview is made and kept by Slipway from the pull ` +
            `request; only spec.approvedCommit may be changed (kubectl slipway preview approve). Only the identities of Slipway${whoMay}`,
          reason: 'Forbidden',
        },
        {
          expression:
            '!variables.approvalChanged || variables.slipway || ' +
            `authorizer.group('${GROUP}').resource('previews').namespace(request.namespace).name(object.metadata.name).check('approve').allowed()`,
          messageExpression:
            `'Preview ' + object.metadata.name + ': approving a pull request builds its code with the ` +
            `settings of the project, so spec.approvedCommit needs the verb approve on previews.${GROUP} in namespace ' + ` +
            `request.namespace + ', which ' + request.userInfo.username + ' does not have.'`,
          reason: 'Forbidden',
        },
        ...promotionValidations,
      ],
    },
  };
}

/** CEL: the value of `spec.<field>` of `root` as a string ('' when absent), for comparing old and new. */
function fieldOf(root: 'object' | 'oldObject', field: string): string {
  return `has(${root}.spec.${field}) ? string(${root}.spec.${field}) : ''`;
}

/** CEL: every field of a Preview's spec but approvedCommit is as it was. */
function deliveredSpecKept(): string {
  const fields = Object.keys(previewSpec.shape).filter((f) => f !== 'approvedCommit');
  return fields
    .map(
      (f) =>
        `(has(object.spec.${f}) == has(oldObject.spec.${f}) && (!has(object.spec.${f}) || object.spec.${f} == oldObject.spec.${f}))`,
    )
    .join(' && ');
}

export function writersBinding(namespace = WRITERS_NAMESPACE) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: WRITERS_POLICY },
    spec: {
      policyName: WRITERS_POLICY,
      // Without the ConfigMap, nothing may write: the status stays Slipway's even then.
      paramRef: { name: WRITERS_CONFIG_MAP, namespace, parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny'],
    },
  };
}

export function writersConfigMap(users: readonly string[] = DEFAULT_WRITERS, namespace = WRITERS_NAMESPACE) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: WRITERS_CONFIG_MAP, namespace },
    data: { [WRITERS_KEY]: users.map((u) => `${u}\n`).join('') },
  };
}

/** The user names a writers ConfigMap lists. */
export function writersOf(data: Record<string, string> | undefined): string[] {
  return (data?.[WRITERS_KEY] ?? '')
    .split('\n')
    .map((u) => u.trim())
    .filter((u) => u !== '');
}
