// kubectl slipway hook <project> [--provider p]: the webhook URL and secret, and what to paste
// into which field of the provider's form; hook rotate <project>: a new generated secret.
import { randomBytes } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import type { ProjectObject, Provider } from '../../crds/index.ts';
import { isProvider, providerModules, registry } from '../../providers/index.ts';
import { ANNOTATION_SECRET_ROTATED_AT } from '../../crds/labels.ts';
import { effectiveSlug, webhookSecretRef, withToken } from '../../rules/webhook-url.ts';
import { mergePatch } from '../../lib/kube.ts';
import { readObject } from '../read.ts';
import type { CliContext } from '../context.ts';
import { CommandError, UsageError } from '../errors.ts';
import { printObject } from '../print.ts';
import { positionals, text, type Command, type Values } from './command.ts';

const PROVIDERS = providerModules.map((m) => m.name);
const HIDDEN = '<hidden: add --show-secret>';

async function readHook(ctx: CliContext, name: string) {
  const project = await readObject<ProjectObject>(ctx, 'Project', name);
  const webhook = project.status?.webhook;
  if (!webhook?.url)
    throw new CommandError(
      `project ${name} has no webhook URL yet: ${project.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? 'is the operator running?'}`,
    );
  // The Secret the spec names, as the gateway reads it (status may lag a change of it).
  const secretRef = webhookSecretRef(project);
  const secret = await ctx.clients.core.readNamespacedSecret({
    name: secretRef.name,
    namespace: ctx.namespace,
  });
  const encoded = secret.data?.[secretRef.key];
  if (!encoded) throw new CommandError(`Secret ${secretRef.name} has no key ${secretRef.key}`);
  const value = Buffer.from(encoded, 'base64').toString();
  // status.webhook.url leaves the token out: only who may read the Secret can derive it.
  const slug = project.status?.slug ?? effectiveSlug(project);
  return {
    project,
    webhook: { ...webhook, secretRef },
    secret,
    value,
    url: withToken(webhook.url, slug, value),
    slug,
  };
}

/** --provider, checked before anything is read. */
function checkedProvider(values: Values): Provider | undefined {
  const provider = text(values, 'provider');
  if (provider !== undefined && !isProvider(provider))
    throw new UsageError(`unknown provider "${provider}": ${PROVIDERS.join(', ')}`);
  return provider;
}

function print(
  ctx: CliContext,
  project: string,
  url: string,
  secretValue: string,
  secretRef: { name: string; key: string },
  values: Values,
) {
  const provider = checkedProvider(values);
  const show = values['show-secret'] === true;
  // The URL's last segment is derived from the secret: a credential like it.
  const shownUrl = show ? url : url.replace(/[^/]+$/, '<token: add --show-secret>');
  const secret = show ? secretValue : HIDDEN;
  const module = provider ? registry[provider] : undefined;
  const form = module?.form;
  if (
    printObject(ctx, {
      url: shownUrl,
      secretRef,
      ...(show ? { secret: secretValue } : {}),
      ...(form
        ? {
            provider,
            where: form.where,
            fields: Object.fromEntries(form.fields(shownUrl, secret)),
            report: { token: module!.report.token, ...reportSetup(ctx, project) },
          }
        : {}),
    })
  )
    return;
  const lines = [
    `Webhook URL:  ${shownUrl}`,
    `Secret:       ${secret}  (Secret ${secretRef.name}, key ${secretRef.key})`,
  ];
  if (form) {
    lines.push('', `${module!.title}: ${form.where}`);
    const fields = form.fields(shownUrl, secret);
    const width = Math.max(...fields.map(([k]) => k.length));
    for (const [k, v] of fields) lines.push(`  ${`${k}:`.padEnd(width + 1)}  ${v}`);
    const setup = reportSetup(ctx, project);
    lines.push(
      '',
      `Commit statuses on ${module!.title} (optional, spec.report): ${module!.report.token}; store it with`,
      `  ${setup.storeToken}`,
      `  and set spec.report: ${JSON.stringify(setup.spec)}`,
    );
  } else {
    lines.push('', `What to paste where: add --provider ${PROVIDERS.join('|')}`);
  }
  lines.push(
    '',
    'The URL is a credential too (its last segment comes from the secret): keep it out of logs and tickets.',
  );
  ctx.out(lines.join('\n'));
}

/** How to store the reporting token and point the Project at it (docs/providers.md §7). */
function reportSetup(ctx: CliContext, project: string) {
  const name = `${project}-git-token`;
  return {
    storeToken: `kubectl -n ${ctx.namespace} create secret generic ${name} --from-literal=token=<token>`,
    spec: { tokenSecretRef: { name, key: 'token' } },
  };
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "a project's webhook URL and secret, and what to paste into your git provider's form",
  usage: `hook <project> [--provider ${PROVIDERS.join('|')}] [--show-secret]\n       kubectl slipway hook rotate <project> [--show-secret]`,
  help: `hook <project> prints the webhook URL and where its secret is; --provider adds exactly what to
fill into that provider's form and which events to pick, and which token commit statuses need
(spec.report) with how to store it. The secret is printed only with
--show-secret. "hook rotate" replaces a generated secret with a new one (the URL changes with it:
paste both again); the gateway takes the new secret within 30 s. The Project's status.webhook.url
leaves the token out: this command derives it from the Secret, for whoever may read it.`,
  options: { provider: { type: 'string' }, 'show-secret': { type: 'boolean' } },
  completions: ['rotate', ...PROVIDERS],
  async run(ctx, args, values) {
    if (args[0] === 'rotate') {
      const [, name] = positionals(args, ['rotate', 'project']);
      checkedProvider(values);
      return rotate(ctx, name!, values);
    }
    const [name] = positionals(args, ['project']);
    checkedProvider(values);
    const hook = await readHook(ctx, name!);
    print(ctx, name!, hook.url, hook.value, hook.webhook.secretRef, values);
  },
};

async function rotate(ctx: CliContext, name: string, values: Values) {
  const { project, webhook, secret, slug } = await readHook(ctx, name);
  const ownedByProject = (secret.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'Project' && o.uid === project.metadata.uid && o.controller,
  );
  if (!ownedByProject)
    throw new CommandError(
      `project ${name} uses its own Secret ${webhook.secretRef.name} (spec.webhookSecretRef): put a new value there; then "kubectl slipway hook ${name}" prints the new URL`,
    );
  // 32 random bytes, base64url: the same form as the operator's generated secrets.
  const fresh = randomBytes(32).toString('base64url');
  const patch: V1Secret = { data: { [webhook.secretRef.key]: Buffer.from(fresh).toString('base64') } };
  await ctx.clients.core.patchNamespacedSecret(
    { name: webhook.secretRef.name, namespace: ctx.namespace, body: patch },
    mergePatch,
  );
  // The gateway reads the Secret itself (a change reaches it within its cache's 30 s); the
  // annotation records when, and makes the operator look at the Project again.
  await ctx.slipway.patch('Project', ctx.namespace, name, {
    metadata: { annotations: { [ANNOTATION_SECRET_ROTATED_AT]: new Date().toISOString() } },
  });
  const url = withToken(webhook.url, slug, fresh);
  ctx.err(
    `rotated the webhook secret of project ${name}: paste the new URL and secret into your provider (the gateway takes them within 30 s)`,
  );
  print(ctx, name, url, fresh, webhook.secretRef, values);
}
