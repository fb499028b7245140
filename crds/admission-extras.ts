// The admission checks that are not of one named reference (admission.ts's policies add them):
// each Secret a list names, and the fields that decide when or what an Environment runs.
import { DEPLOY_VERB } from './admission-verbs.ts';
import { GROUP } from './common.ts';

/**
 * Every Secret a list names (`spec.<list>[].secretRef`): its author must be able to read it,
 * unless the list already named it, or a tenant could point Slipway at another team's chat
 * webhook or subscriber. One validation per place in the list, as CEL allows only a few
 * authorizer calls per expression.
 */
export function listSecrets(kind: string, path: string[], max: number, nameField = 'secretRef.name'): Extra {
  const list = (root: 'object' | 'oldObject') => [root, 'spec', ...path].join('.');
  // has() of each step: the list may sit in an optional object (spec.previews.forkSecrets).
  const present = (root: 'object' | 'oldObject') =>
    path.map((_, i) => `has(${[root, 'spec', ...path.slice(0, i + 1)].join('.')})`).join(' && ');
  const field = `spec.${path.join('.')}`;
  return {
    variables: [],
    validations: Array.from({ length: max }, (_, i) => {
      const name = `${list('object')}[${i}].${nameField}`;
      const shown =
        nameField === 'name' ? `${field}[${i}]` : `${field}[${i}].${nameField.replace(/\.name$/, '')}`;
      return {
        expression:
          `!(${present('object')}) || size(${list('object')}) <= ${i} || ` +
          `(oldObject != null && ${present('oldObject')} && ` +
          `${list('oldObject')}.exists(o, o.${nameField} == ${name})) || ` +
          `authorizer.group('').resource('secrets').namespace(request.namespace).name(${name}).check('get').allowed()`,
        messageExpression:
          `'${kind} ' + object.metadata.name + ': you may not get Secret ' + ${name} + ' in namespace ' + ` +
          `request.namespace + ', so ${shown} may not name it (Slipway would read it for you). ` +
          `Ask for "get" on it, or name one you may get.'`,
        reason: 'Forbidden',
      };
    }),
  };
}

/**
 * A field that decides when or what an Environment runs — a freeze (spec.suspend) set or lifted,
 * an Environment's automatic promotion (spec.promoteFrom) — needs the verb deploy on the
 * Environment itself, or for a Project on every Environment of the namespace.
 */
export function deployDecision(
  kind: 'Project' | 'Environment',
  field: 'suspend' | 'promoteFrom',
  why: string,
): Extra {
  const value = (root: 'object' | 'oldObject') =>
    field === 'suspend'
      ? `(${root} != null && has(${root}.spec.suspend) && ${root}.spec.suspend)`
      : `(${root} != null && has(${root}.spec.promoteFrom) ? [${root}.spec.promoteFrom] : [])`;
  const on = kind === 'Environment' ? '.name(object.metadata.name)' : '';
  const what =
    kind === 'Environment'
      ? `to Environment ' + object.metadata.name + '`
      : `to the Environments of namespace ' + request.namespace + '`;
  return {
    variables: [],
    validations: [
      {
        expression:
          `${value('object')} == ${value('oldObject')} || ` +
          `authorizer.group('${GROUP}').resource('environments').namespace(request.namespace)${on}.check('${DEPLOY_VERB}').allowed()`,
        messageExpression:
          `'${kind} ' + object.metadata.name + ': you may not ${DEPLOY_VERB} ${what}, so you may not change spec.${field} ` +
          `(${why}). Ask for "${DEPLOY_VERB}" on environments.${GROUP}` +
          `${kind === 'Environment' ? " ' + object.metadata.name + '" : ' in the namespace'}.'`,
        reason: 'Forbidden',
      },
    ],
  };
}

export const FREEZE = 'a freeze decides when what is built runs';

/**
 * A Project's spec.previews and spec.report together decide which pull requests run with the
 * previews' Environment's settings: Slipway writes the Previews that the server at
 * spec.report.apiUrl lists as open (its fork flag and head commit too). So setting or changing
 * either, while previews are on, needs the verb deploy on that Environment, as naming it does:
 * an editor who may read some Secret cannot point the periodic look at a server of theirs.
 * Turning previews off is not checked (it removes previews; it runs nothing).
 */
export function previewSettings(): Extra {
  const same = (field: string) =>
    `(has(object.spec.${field}) ? (has(oldObject.spec.${field}) && object.spec.${field} == oldObject.spec.${field}) : !has(oldObject.spec.${field}))`;
  return {
    variables: [],
    validations: [
      {
        expression:
          `!has(object.spec.previews) || (oldObject != null && ${same('previews')} && ${same('report')}) || ` +
          `authorizer.group('${GROUP}').resource('environments').namespace(request.namespace)` +
          `.name(object.spec.previews.environmentRef.name).check('${DEPLOY_VERB}').allowed()`,
        messageExpression:
          `'Project ' + object.metadata.name + ': you may not ${DEPLOY_VERB} to Environment ' + ` +
          `object.spec.previews.environmentRef.name + ' in namespace ' + request.namespace + ', so you may not change ` +
          `spec.previews or spec.report (the pull requests that server lists run there as previews). ` +
          `Ask for "${DEPLOY_VERB}" on environments.${GROUP} ' + object.spec.previews.environmentRef.name + '.'`,
        reason: 'Forbidden',
      },
    ],
  };
}
/** Checks that are not of one named reference: their own variables and validations. */
export interface Extra {
  variables: Array<{ name: string; expression: string }>;
  validations: Array<{ expression: string; messageExpression: string; reason: string }>;
}
