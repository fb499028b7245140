// Argo CD's health check of Slipway's kinds, run as Argo CD runs it: the Lua script from
// deploy/argocd/argocd-cm-health.yaml (what users patch into argocd-cm) in gopher-lua's Lua 5.1
// interpreter (glua, built once by scripts/lua/build.sh), with the object as the global `obj`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ARGOCD_HEALTH_FILE = join(ROOT, 'deploy', 'argocd', 'argocd-cm-health.yaml');

export interface ArgoHealth {
  status: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';
  message: string;
}

/** The argocd-cm keys the patch sets: `resource.customizations.health.<group>_<kind>` → Lua. */
let scripts: Record<string, string> | undefined;
export function healthScripts(): Record<string, string> {
  scripts ??= (parse(readFileSync(ARGOCD_HEALTH_FILE, 'utf8')) as { data: Record<string, string> }).data;
  return scripts;
}

let glua: string | undefined;
function interpreter(): string {
  glua ??= execFileSync('sh', [join(ROOT, 'scripts', 'lua', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return glua;
}

/** A Lua 5.1 string literal: ASCII as is, quotes and control characters and UTF-8 bytes escaped. */
function luaString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    // Three digits always: Lua reads up to three after a backslash ("\n1" is not "\101").
    out += byte < 32 || byte > 126 || c === '"' || c === '\\' ? `\\${String(byte).padStart(3, '0')}` : c;
  }
  return `${out}"`;
}

/** JSON as a Lua table constructor, arrays 1-indexed, as Argo CD hands an object to its scripts. */
function luaValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
  const fields = Object.entries(value as Record<string, unknown>).map(
    ([k, v]) => `[${luaString(k)}] = ${luaValue(v)}`,
  );
  return `{${fields.join(', ')}}`;
}

/** Argo CD's health of `object` by the script its kind's argocd-cm key holds. */
export function argoHealth(object: { apiVersion?: string; kind?: string }): ArgoHealth {
  const group = (object.apiVersion ?? '').split('/')[0];
  const key = `resource.customizations.health.${group}_${object.kind}`;
  const script = healthScripts()[key];
  if (!script) throw new Error(`${ARGOCD_HEALTH_FILE} has no ${key}`);
  const dir = mkdtempSync(join(tmpdir(), 'slipway-argocd-health-'));
  try {
    const file = join(dir, 'check.lua');
    // The script's own `return hs` ends a function, as Argo CD runs it as a chunk that returns.
    writeFileSync(
      file,
      `obj = ${luaValue(object)}\nlocal function check()\n${script}\nend\nlocal hs = check()\n` +
        `io.write(hs.status, "\\n", hs.message or "")\n`,
    );
    const out = execFileSync(interpreter(), [file], { encoding: 'utf8' });
    const [status, ...message] = out.split('\n');
    return { status: status as ArgoHealth['status'], message: message.join('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
