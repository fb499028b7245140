// Who may ask for a promotion and who may approve one, checked at admission by the policy
// slipway-writers (writers.ts adds these to it; its `slipway` variable says whether the writer is
// one of Slipway's own identities). A Promotion rolls an image out to its target Environment, so
// its creator needs the verb deploy there, as a Bundle's does; spec.requestedBy is its creator's
// own user name. spec.approvals only grow, one user once, and whoever adds an entry adds their
// own name and has the verb approve on promotions — not the requester when gates.separateApprover
// says so. (The spec is otherwise fixed once made: a rule of the CRD.)
import { GROUP } from './common.ts';
import { DEPLOY_VERB } from './admission-verbs.ts';

/** The custom verb on promotions that lets a user approve one. */
export const APPROVE_VERB = 'approve';

export const promotionRule = {
  apiGroups: [GROUP],
  apiVersions: ['*'],
  operations: ['CREATE', 'UPDATE'],
  resources: ['promotions'],
};

const approvals = (root: 'object' | 'oldObject') =>
  `(has(${root}.spec.approvals) ? ${root}.spec.approvals.map(a, a.user) : [])`;

export const promotionVariables = [
  { name: 'promotion', expression: "!variables.status && request.resource.resource == 'promotions'" },
  { name: 'approvers', expression: `variables.promotion ? ${approvals('object')} : []` },
  {
    name: 'approversBefore',
    expression: `variables.promotion && request.operation == 'UPDATE' ? ${approvals('oldObject')} : []`,
  },
  {
    name: 'approversAdded',
    expression: 'variables.approvers.filter(u, !(u in variables.approversBefore))',
  },
];

const name = "'Promotion ' + object.metadata.name + ': ";
const user = 'request.userInfo.username';

export const promotionValidations = [
  {
    expression:
      `!variables.promotion || request.operation != 'CREATE' || variables.slipway || ` +
      `object.spec.requestedBy == ${user}`,
    messageExpression: `${name}spec.requestedBy must be your own user name, ' + ${user} + ' (kubectl slipway promote sets it).'`,
    reason: 'Forbidden',
  },
  {
    expression:
      `!variables.promotion || request.operation != 'CREATE' || variables.slipway || ` +
      `authorizer.group('${GROUP}').resource('environments').namespace(request.namespace)` +
      `.name(object.spec.to.environmentRef.name).check('${DEPLOY_VERB}').allowed()`,
    messageExpression:
      `${name}you may not ${DEPLOY_VERB} to Environment ' + object.spec.to.environmentRef.name + ` +
      `' in namespace ' + request.namespace + ', so spec.to may not name it (Slipway would deploy for you). ` +
      `Ask for "${DEPLOY_VERB}" on environments.${GROUP} ' + object.spec.to.environmentRef.name + '.'`,
    reason: 'Forbidden',
  },
  {
    expression: '!variables.promotion || variables.approversBefore.all(u, u in variables.approvers)',
    messageExpression: `${name}approvals are only added: none may be removed or changed.'`,
    reason: 'Forbidden',
  },
  {
    expression:
      '!variables.promotion || variables.approvers.all(u, variables.approvers.filter(v, v == u).size() == 1)',
    messageExpression: `${name}each user approves once: spec.approvals names a user twice.'`,
    reason: 'Invalid',
  },
  {
    expression: `!variables.promotion || variables.approversAdded.all(u, u == ${user})`,
    messageExpression: `${name}an approval is its writer\\'s own: ' + ${user} + ' may add only {user: ' + ${user} + '} to spec.approvals (kubectl slipway promotion approve).'`,
    reason: 'Forbidden',
  },
  {
    expression:
      '!variables.promotion || variables.approversAdded.size() == 0 || ' +
      `authorizer.group('${GROUP}').resource('promotions').namespace(request.namespace)` +
      `.name(object.metadata.name).check('${APPROVE_VERB}').allowed()`,
    messageExpression:
      `${name}approving rolls an image out, so it needs the verb ${APPROVE_VERB} on promotions.${GROUP} in namespace ' + ` +
      `request.namespace + ', which ' + ${user} + ' does not have.'`,
    reason: 'Forbidden',
  },
  {
    expression:
      '!variables.promotion || variables.approversAdded.size() == 0 || ' +
      '!has(object.spec.gates) || !has(object.spec.gates.separateApprover) || ' +
      `!object.spec.gates.separateApprover || !(object.spec.requestedBy in variables.approversAdded)`,
    messageExpression: `${name}gates.separateApprover is set, so its requester ' + object.spec.requestedBy + ' may not approve it: someone else must.'`,
    reason: 'Forbidden',
  },
];
