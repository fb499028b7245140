// What the Dockerfile says Slipway's image is: the final stage's files, user, working directory,
// environment, ports, labels and command. scripts/image/build.ts assembles the image from this
// (no Docker engine needed), so the Dockerfile stays the one description of the image.
import { matchesGlob } from 'node:path';

export interface Copy {
  /** The stage the files come from (`COPY --from=deps`), or undefined for the build context. */
  from?: string;
  sources: string[];
  dest: string;
}

export interface ImageRecipe {
  /** FROM of the final stage (the base a Docker build starts from). */
  base: string;
  /** ARG defaults declared before the first FROM, e.g. NODE_VERSION. */
  args: Record<string, string>;
  copies: Copy[];
  user: string;
  workdir: string;
  env: Record<string, string>;
  exposedPorts: string[];
  labels: Record<string, string>;
  cmd: string[];
  /** RUN commands of the final stage, as written (continuation lines joined). */
  runs: string[];
}

/** Final-stage instructions the recipe reads; any other one is refused (it would be lost). */
const KNOWN = new Set(['COPY', 'USER', 'WORKDIR', 'ENV', 'LABEL', 'EXPOSE', 'CMD', 'RUN', 'ARG']);

/** Instructions with their continuation lines joined and comments dropped. */
function instructions(text: string): { op: string; rest: string }[] {
  const out: { op: string; rest: string }[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!current && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (current && line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    const match = /^\s*(\w+)\s+([\s\S]*)$/.exec(current);
    if (match) out.push({ op: match[1]!.toUpperCase(), rest: match[2]!.trim() });
    current = '';
  }
  return out;
}

/** `k=v k2="v 2"` pairs (ENV, LABEL, ARG). */
function pairs(rest: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of rest.matchAll(/([\w.-]+)=("((?:[^"\\]|\\.)*)"|\S*)/g)) {
    out[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!;
  }
  return out;
}

function substitute(value: string, args: Record<string, string>): string {
  return value.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a?: string, b?: string) => args[(a ?? b)!] ?? whole);
}

/** Reads the final stage of a Dockerfile. */
export function parseDockerfile(text: string): ImageRecipe {
  const all = instructions(text);
  const args: Record<string, string> = {};
  for (const { op, rest } of all) {
    if (op === 'FROM') break;
    if (op === 'ARG') Object.assign(args, pairs(rest));
  }
  const lastFrom = all.map((i) => i.op).lastIndexOf('FROM');
  if (lastFrom < 0) throw new Error('the Dockerfile has no FROM');
  const recipe: ImageRecipe = {
    base: substitute(all[lastFrom]!.rest.split(/\s+/)[0]!, args),
    args,
    copies: [],
    user: '',
    workdir: '/',
    env: {},
    exposedPorts: [],
    labels: {},
    cmd: [],
    runs: [],
  };
  for (const { op, rest } of all.slice(lastFrom + 1)) {
    if (op === 'COPY') {
      const words = rest.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      recipe.copies.push({ ...(from ? { from } : {}), sources: paths.slice(0, -1), dest: paths.at(-1)! });
    } else if (op === 'USER') recipe.user = rest;
    else if (op === 'WORKDIR') recipe.workdir = rest;
    else if (op === 'ENV') Object.assign(recipe.env, pairs(rest));
    else if (op === 'LABEL') Object.assign(recipe.labels, pairs(rest));
    else if (op === 'EXPOSE')
      recipe.exposedPorts.push(...rest.split(/\s+/).map((p) => (p.includes('/') ? p : `${p}/tcp`)));
    else if (op === 'CMD') recipe.cmd = JSON.parse(rest) as string[];
    else if (op === 'RUN') recipe.runs.push(rest.replace(/\s+/g, ' '));
    else if (!KNOWN.has(op))
      throw new Error(`the Dockerfile's final stage has ${op}, which the recipe does not know`);
  }
  return recipe;
}

/**
 * Whether `.dockerignore` keeps `path` (relative, with `/`) in the build context: the last
 * pattern that matches the path or one of its parent folders decides, `!` keeps.
 */
export function dockerignoreKeeps(ignoreText: string, path: string): boolean {
  const patterns = ignoreText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const parts = path.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let kept = true;
  for (const raw of patterns) {
    const keep = raw.startsWith('!');
    const pattern = (keep ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    if (prefixes.some((p) => matchesGlob(p, pattern))) kept = keep;
  }
  return kept;
}
