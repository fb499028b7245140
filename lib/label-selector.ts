// Kubernetes label selectors, matched locally (the API server's syntax: `key`, `!key`,
// `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, comma for "and"),
// for caches that keep every object but act on those a selector picks (an operator shard's
// Projects: all are watched for slug claims, only its own are reconciled).

type Requirement = (labels: Record<string, string>) => boolean;

/** Splits at commas outside parentheses. */
function clauses(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function requirement(clause: string): Requirement {
  let m = /^!\s*([^\s!=(),]+)$/.exec(clause);
  if (m) {
    const key = m[1]!;
    return (labels) => !(key in labels);
  }
  m = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(clause);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(
      list
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    );
    return op === 'in'
      ? (labels) => key in labels && values.has(labels[key]!)
      : (labels) => !(key in labels) || !values.has(labels[key]!);
  }
  m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(clause);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  m = /^([^\s!=(),]+)$/.exec(clause);
  if (m) {
    const key = m[1]!;
    return (labels) => key in labels;
  }
  throw new Error(`not a label selector requirement: "${clause}"`);
}

/** The label keys a selector's requirements are about. */
export function selectorKeys(selector: string | undefined): string[] {
  return clauses(selector ?? '').map((clause) => /^!?\s*([^\s!=(),]+)/.exec(clause)?.[1] ?? clause);
}

/** A matcher for `selector`; throws on a requirement it cannot read. Empty selects everything. */
export function labelSelector(
  selector: string | undefined,
): (labels: Record<string, string> | undefined) => boolean {
  const requirements = clauses(selector ?? '').map(requirement);
  return (labels) => requirements.every((r) => r(labels ?? {}));
}
