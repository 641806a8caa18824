import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '@kapi/apimachinery';
import { compileSchema } from './compile-schema.js';
import { validateCustomResourceSchema } from './validate-custom-resource-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import type { CompiledSchema } from './compiled-schema.js';

const root = join(import.meta.dirname, 'testdata', 'crds');

type Doc = Record<string, unknown> & { kind?: string; apiVersion?: string };

function load(path: string): Doc[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => doc.toJS() as Doc | null)
    .filter((doc): doc is Doc => doc !== null);
}

interface Version {
  name: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
}
interface Crd {
  spec: { group: string; names: { kind: string }; versions: Version[] };
}

const crds: Crd[] = [];
for (const project of ['gateway-api', 'cert-manager', 'prometheus-operator'])
  for (const file of readdirSync(join(root, project)).filter((name) => name.endsWith('.yaml')))
    crds.push(...(load(join(root, project, file)) as unknown as Crd[]));

const compiled = new Map<string, CompiledSchema>();
for (const crd of crds)
  for (const version of crd.spec.versions)
    compiled.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, compileSchema(version.schema.openAPIV3Schema));

function schemaFor(object: Doc): CompiledSchema {
  const found = compiled.get(`${object.apiVersion}/${object.kind}`);
  if (!found) throw new Error(`no CRD for ${object.apiVersion}/${object.kind}`);
  return found;
}

/** Validates like the create path: prune, default, validate; returns the rendered errors. */
function create(object: Doc): string[] {
  const copy = structuredClone(object);
  const schema = schemaFor(copy);
  schema.prune(copy);
  schema.applyDefaults(copy);
  return schema.validate(copy).map(fieldErrorMessage);
}

describe('real CRDs', () => {
  it('every version schema passes CRD validation and its CEL rules compile', () => {
    const problems: string[] = [];
    let rules = 0;
    crds.forEach((crd) =>
      crd.spec.versions.forEach((version, index) => {
        const path = `spec.versions[${index}].schema.openAPIV3Schema`;
        const result = validateCustomResourceSchema(version.schema.openAPIV3Schema, path);
        problems.push(...result.errors.map((error) => `${crd.spec.names.kind}: ${fieldErrorMessage(error)}`));
        problems.push(...result.nonStructural.map((reason) => `${crd.spec.names.kind}: ${reason}`));
      }),
    );
    for (const schema of compiled.values()) rules += schema.celRuleCount;
    expect(problems).toEqual([]);
    expect(crds.length).toBe(12);
    // Gateway API's standard channel carries its rules in each of its served versions.
    expect(rules).toBeGreaterThan(100);
  });

  it('accepts the Gateway API examples unchanged', () => {
    const examples = join(root, 'gateway-api', 'examples');
    const objects = readdirSync(examples).flatMap((file) => load(join(examples, file))).filter((doc) => doc.kind !== 'Namespace');
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) {
      const copy = structuredClone(object);
      expect(schemaFor(copy).prune(copy)).toEqual([]);
      expect(create(object)).toEqual([]);
    }
  });
});
