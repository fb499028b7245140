import { describe, expect, it } from '@jest/globals';
import { customResourceDefinition, structural } from '../../../crds/crd.ts';
import { Bundle, StatusNotice, Webhook, kinds, webhookSpec } from '../../../crds/index.ts';

describe('structural', () => {
  it('keeps a property named id while dropping the JSON Schema keywords the API server refuses', () => {
    const out = structural({
      $schema: 'x',
      type: 'object',
      additionalProperties: false,
      properties: {
        id: { type: 'integer', maximum: Number.MAX_SAFE_INTEGER, minimum: -Number.MAX_SAFE_INTEGER },
      },
    });
    expect(out).toEqual({ type: 'object', properties: { id: { type: 'integer' } } });
  });

  it('drops the regex zod adds beside format: date-time', () => {
    expect(structural({ type: 'string', format: 'date-time', pattern: '^x$' })).toEqual({
      type: 'string',
      format: 'date-time',
    });
  });
});

describe('customResourceDefinition', () => {
  it('gives every kind the status subresource, the slipway category and a Ready column', () => {
    for (const def of kinds) {
      const crd = customResourceDefinition(def);
      const version = crd.spec.versions[0]!;
      expect(version.subresources).toEqual({ status: {} });
      expect(crd.spec.names.categories).toEqual(['slipway']);
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.names.shortNames.length).toBeGreaterThan(0);
      expect(version.additionalPrinterColumns.map((c) => c.name)).toContain('Age');
    }
  });

  it('carries the CEL rules into the spec schema', () => {
    const spec = customResourceDefinition(StatusNotice).spec.versions[0]!.schema.openAPIV3Schema.properties
      .spec as {
      'x-kubernetes-validations': Array<{ message: string }>;
    };
    expect(spec['x-kubernetes-validations'].map((r) => r.message)).toContain(
      'a planned notice needs beginsAt and endsAt',
    );
    const bundle = customResourceDefinition(Bundle).spec.versions[0]!.schema.openAPIV3Schema.properties
      .spec as {
      properties: { source: { 'x-kubernetes-validations': unknown[] } };
    };
    expect(bundle.properties.source['x-kubernetes-validations']).toHaveLength(1);
  });
});

describe('runtime validation from the same schemas', () => {
  it('accepts a valid webhook spec and names the field of an invalid one', () => {
    expect(
      webhookSpec.safeParse({ projectRef: { name: 'shop' }, branch: 'main', matchMode: 'Exact' }).success,
    ).toBe(true);
    const bad = Webhook.spec.safeParse({ projectRef: { name: 'shop' }, branch: '', matchMode: 'Regex' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['branch', 'matchMode']);
  });
});
