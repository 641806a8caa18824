import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isRecord, type SchemaNode } from './schema-node.js';
import { bodySchemaOf, compileOpenAPIValidation, validateOpenAPI } from './validate-object.js';

const root = join(import.meta.dirname, 'testdata', 'crds');

interface Crd {
  spec: { versions: { name: string; schema: { openAPIV3Schema: SchemaNode } }[] };
}

const schemas: SchemaNode[] = [];
for (const project of ['gateway-api', 'cert-manager', 'prometheus-operator'])
  for (const file of readdirSync(join(root, project)).filter((name) => name.endsWith('.yaml')))
    for (const doc of parseAllDocuments(readFileSync(join(root, project, file), 'utf8'))) {
      const crd = doc.toJS() as Crd | null;
      for (const version of crd?.spec.versions ?? []) schemas.push(version.schema.openAPIV3Schema);
    }

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const strings = ['', 'a', 'Exact', 'PathPrefix', '/path', 'example.com', '*.example.com', 'x'.repeat(300), 'ü😀', '10.0.0.1', '1h', '2024-01-01T00:00:00Z', 'a-b.c', 'Service', 'aGVsbG8=', 'http://x', 'gateway.networking.k8s.io'];
const numbers = [0, 1, -1, 80, 65535, 65536, 2 ** 31, 1.5, 100];
const anything = (next: () => number): unknown => [null, 'x', 3, 2.5, true, [], {}, [1, 1], { a: 1 }][Math.floor(next() * 9)];

/** A value under `schema`: mostly of its shape (enum members, declared properties), sometimes anything. */
function generate(schema: SchemaNode, next: () => number, depth: number): unknown {
  if (next() < 0.04 || depth > 12) return anything(next);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  if (Array.isArray(schema['enum']) && next() < 0.9) return pick(schema['enum']);
  if (schema['x-kubernetes-int-or-string'] === true) return next() < 0.5 ? pick(numbers) : pick(strings);
  switch (schema['type']) {
    case 'string':
      return next() < 0.1 ? `${pick(strings)}${pick(strings)}` : pick(strings);
    case 'integer':
    case 'number':
      return pick(numbers);
    case 'boolean':
      return next() < 0.5;
    case 'array': {
      const items = schema['items'];
      const length = Math.floor(next() * 4);
      const out = Array.from({ length }, () => (items && typeof items === 'object' ? generate(items as SchemaNode, next, depth + 1) : anything(next)));
      if (length > 0 && next() < 0.1) out.push(structuredClone(out[0]));
      return out;
    }
    default: {
      const out: Record<string, unknown> = {};
      const properties = (schema['properties'] ?? {}) as Record<string, SchemaNode>;
      const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
      for (const [name, child] of Object.entries(properties))
        if (next() < (required.has(name) ? 0.95 : 0.4)) out[name] = generate(child, next, depth + 1);
      const additional = schema['additionalProperties'];
      if (additional && typeof additional === 'object')
        for (let index = Math.floor(next() * 3); index > 0; index--) out[pick(strings)] = generate(additional as SchemaNode, next, depth + 1);
      if (next() < 0.05) out['unknownField'] = anything(next);
      return out;
    }
  }
}

/** What a validation gives: its errors, or what it throws (a pattern that does not compile, as in cert-manager's `(?i)`). */
function outcome(validate: () => unknown): unknown {
  try {
    return validate();
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

describe('the compiled OpenAPI validation', () => {
  it('gives the general validation’s errors, and recognises valid objects itself, on generated objects of real CRDs', () => {
    let valid = 0;
    let invalid = 0;
    schemas.forEach((schema, index) => {
      const body = bodySchemaOf(schema);
      const compiled = compileOpenAPIValidation(body);
      const next = random(index + 1);
      for (let count = 0; count < 400; count++) {
        const generated = generate(schema, next, 0);
        // The create path validates objects only.
        if (!isRecord(generated)) continue;
        const object = generated;
        const expected = outcome(() => validateOpenAPI(object, body));
        expect(outcome(() => compiled(object))).toEqual(expected);
        if (Array.isArray(expected) && expected.length === 0) valid++;
        else invalid++;
      }
    });
    // Both kinds occur often enough for the comparison to mean something.
    expect(valid).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(500);
  });

  it('says valid exactly when the general validation finds nothing', async () => {
    const { compileValidityCheck } = await import('./fast-validate.js');
    const { validateAgainstSchema } = await import('@kapi/apimachinery');
    let agreed = 0;
    schemas.forEach((schema, index) => {
      const body = bodySchemaOf(schema);
      const holds = compileValidityCheck(body, () => true);
      const next = random(1000 + index);
      for (let count = 0; count < 400; count++) {
        const object = generate(schema, next, 0);
        const general = outcome(() => validateAgainstSchema(object, body).length === 0);
        const fast = outcome(() => holds(object));
        // Never valid where the general validation finds an error (or throws); and, but for the format checks
        // it adds, hardly ever more cautious than it.
        if (fast === true) expect(general).toBe(true);
        if (fast === general) agreed++;
      }
    });
    expect(agreed).toBeGreaterThan(schemas.length * 400 * 0.95);
  });
});
