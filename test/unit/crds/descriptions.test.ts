// `kubectl explain <kind>.<field>` answers for every field: the generated schemas are walked, and
// every property of spec and status (nested ones, list items and map values included) must carry
// a description.
import { describe, expect, it } from '@jest/globals';
import { customResourceDefinition } from '../../../crds/crd.ts';
import { kinds } from '../../../crds/index.ts';

type Schema = {
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

function undescribed(schema: Schema, path: string): string[] {
  const missing: string[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const at = `${path}.${name}`;
    if (!child.description) missing.push(at);
    missing.push(...undescribed(child, at));
    if (child.items) missing.push(...undescribed(child.items, `${at}[]`));
    if (typeof child.additionalProperties === 'object')
      missing.push(...undescribed(child.additionalProperties, `${at}{}`));
  }
  return missing;
}

describe('field descriptions', () => {
  it.each(kinds.map((k) => [k.kind, k] as const))('%s: every spec and status field has one', (_kind, def) => {
    const root = customResourceDefinition(def).spec.versions[0]!.schema.openAPIV3Schema as Schema;
    const { spec, status } = root.properties!;
    expect(spec!.description).toBeTruthy();
    expect(status!.description).toBeTruthy();
    expect([
      ...undescribed(spec!, `${def.kind}.spec`),
      ...undescribed(status!, `${def.kind}.status`),
    ]).toEqual([]);
  });

  it('explains the fields the issue names', () => {
    const bundle = customResourceDefinition(kinds.find((k) => k.kind === 'Bundle')!).spec.versions[0]!.schema
      .openAPIV3Schema as Schema;
    expect(bundle.properties!.spec!.properties!.trigger!.properties!.type!.description).toMatch(/Manual/);
    const notice = customResourceDefinition(kinds.find((k) => k.kind === 'StatusNotice')!).spec.versions[0]!
      .schema.openAPIV3Schema as Schema;
    expect(notice.properties!.status!.description).toMatch(/operator/);
  });
});
