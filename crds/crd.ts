// Turns a kind's zod schemas into a CustomResourceDefinition with a structural schema.
import { z } from 'zod';
import { GROUP, VERSION, type KindDefinition } from './common.ts';

type JsonSchema = { [key: string]: unknown };

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** Reduce zod's JSON Schema to what a structural CRD schema allows. */
export function structural(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(structural);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === '$schema' || key === 'id') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, v]) => [name, structural(v)]),
      );
      continue;
    }
    out[key] =
      key === 'enum' || key === 'default' || key === 'x-kubernetes-list-map-keys' ? value : structural(value);
  }
  // zod spells a date-time with both a format and a regex; the format alone is what the API server checks.
  if (out.format === 'date-time') delete out.pattern;
  if (out.type === 'integer') {
    if (out.maximum === SAFE_INT) delete out.maximum;
    if (out.minimum === -SAFE_INT) delete out.minimum;
  }
  return out;
}

function described(schema: JsonSchema, description: string): JsonSchema {
  return { description, ...schema };
}

function openApiSchema(schema: z.ZodType): JsonSchema {
  return structural(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' })) as JsonSchema;
}

export function customResourceDefinition(def: KindDefinition) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: ['slipway'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: def.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: described(openApiSchema(def.spec), `What you want of this ${def.kind}; you write it.`),
                status: described(
                  openApiSchema(def.status),
                  'What the operator observed and did; it writes it, you read it.',
                ),
              },
            },
          },
        },
      ],
    },
  };
}
