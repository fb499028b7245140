// What a build step runs to try the registry's door for pods from the inside (docs/adr/0006):
// with no credential, and with each credential a build holds, it asks the gateway (the realm the
// registry's challenge names) for tokens and tries the registry with them.
import { mintRegistryCredential, type RegistryRole } from '../../../rules/registry-access.ts';
import { onHost, type RealNode } from '../../../scripts/cluster/real-node.ts';

/** `user:password` of the credential the operator mints a build of `repository` (role push or pull). */
export function buildCredential(key: string, role: RegistryRole, repository: string): string {
  const { username, password } = mintRegistryCredential(key, {
    role,
    repository,
    expires: Math.floor(Date.now() / 1000) + 3600,
  });
  return `${username}:${password}`;
}

/**
 * A build step (node -e) given $REGISTRY (host:port), $OWN and $OTHER (repositories: the build's
 * own, another namespace's) and $PULL and $PUSH (the build's credentials). It prints one line per
 * attempt, "registry <what>: <status>", and fails when a status is not the one expected.
 */
export const REGISTRY_PROBE_SCRIPT = [
  'const { REGISTRY: reg, OWN: own, OTHER: other, PULL: pull, PUSH: push } = process.env;',
  'let wrong = 0;',
  "const say = (what, status, want) => { console.log('registry ' + what + ': ' + status); if (status !== want) wrong++; };",
  'let challenge;',
  'const token = async (cred, scope) => {',
  '  const u = new URL(challenge.realm);',
  "  u.searchParams.set('service', challenge.service);",
  "  u.searchParams.set('scope', scope);",
  "  const headers = cred ? { Authorization: 'Basic ' + Buffer.from(cred).toString('base64') } : {};",
  '  return (await (await fetch(u, { headers })).json()).token;',
  '};',
  'const ask = async (method, path, cred, scope) => {',
  '  const t = scope === undefined ? undefined : await token(cred, scope);',
  "  const r = await fetch('http://' + reg + path, { method, headers: t ? { Authorization: 'Bearer ' + t } : {} });",
  '  return r.status;',
  '};',
  '(async () => {',
  "  const first = await fetch('http://' + reg + '/v2/');",
  "  const h = first.headers.get('www-authenticate') || '';",
  '  challenge = { realm: (/realm="([^"]+)"/.exec(h) || [])[1], service: (/service="([^"]+)"/.exec(h) || [])[1] };',
  "  say('asks for a token at ' + challenge.realm, first.status, 401);",
  "  const upload = (repo) => '/v2/' + repo + '/blobs/uploads/';",
  "  say('anonymous push to ' + other, await ask('POST', upload(other)), 401);",
  "  say('anonymous push with a token to ' + other, await ask('POST', upload(other), undefined, 'repository:' + other + ':pull,push'), 401);",
  '  for (const [name, cred] of [["pull", pull], ["push", push]]) {',
  "    say(name + ' credential push to ' + other, await ask('POST', upload(other), cred, 'repository:' + other + ':pull,push'), 401);",
  "    say(name + ' credential pull of ' + other, await ask('GET', '/v2/' + other + '/tags/list', cred, 'repository:' + other + ':pull'), 401);",
  '  }',
  "  say('pull credential push to ' + own, await ask('POST', upload(own), pull, 'repository:' + own + ':pull,push'), 401);",
  "  say('pull credential pull of ' + own, await ask('GET', '/v2/' + own + '/tags/list', pull, 'repository:' + own + ':pull'), 200);",
  "  say('push credential push to ' + own, await ask('POST', upload(own), push, 'repository:' + own + ':pull,push'), 202);",
  "  say('catalog', await ask('GET', '/v2/_catalog', push, 'registry:catalog:*'), 401);",
  '  process.exit(wrong ? 1 : 0);',
  '})().catch((e) => { console.log("registry probe failed: " + e); process.exit(1); });',
].join(' ');

/** The lines REGISTRY_PROBE_SCRIPT prints when the registry refuses what it must and lets the build's own through. */
export function registryProbeLines(realm: string, own: string, other: string): string[] {
  return [
    `registry asks for a token at ${realm}: 401`,
    ...[
      `anonymous push to ${other}: 401`,
      `pull credential push to ${other}: 401`,
      `push credential push to ${other}: 401`,
      `pull credential pull of ${other}: 401`,
      `push credential pull of ${other}: 401`,
      `pull credential push to ${own}: 401`,
      `catalog: 401`,
      // The controls: what a build needs still works.
      `pull credential pull of ${own}: 200`,
      `push credential push to ${own}: 202`,
    ].map((attempt) => `registry ${attempt}`),
  ];
}

/** The digest the registry gives the manifest of `image` (`host/repository:tag`), read at its host door. */
export async function registryDigest(node: RealNode, image: string): Promise<string | null> {
  const match = /^([^/]+)\/(.+):([^:/]+)$/.exec(onHost(node, image))!;
  const res = await fetch(`http://${match[1]}/v2/${match[2]}/manifests/${match[3]}`, {
    method: 'HEAD',
    headers: {
      accept:
        'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
    },
  });
  return res.headers.get('docker-content-digest');
}
