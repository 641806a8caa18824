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
    compiled.set(
      `${crd.spec.group}/${version.name}/${crd.spec.names.kind}`,
      compileSchema(version.schema.openAPIV3Schema),
    );

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
    // Every `rule:` of the fixtures (214 lines in the YAML files) compiled into a program, none left out.
    expect(rules).toBe(214);
  });

  it('accepts the Gateway API examples unchanged', () => {
    const examples = join(root, 'gateway-api', 'examples');
    const objects = readdirSync(examples)
      .flatMap((file) => load(join(examples, file)))
      .filter((doc) => doc.kind !== 'Namespace');
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) {
      const copy = structuredClone(object);
      expect(schemaFor(copy).prune(copy)).toEqual([]);
      expect(create(object)).toEqual([]);
    }
  });
});

function route(rules: unknown[], extra: Record<string, unknown> = {}): Doc {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r' },
    spec: { parentRefs: [{ name: 'gw' }], rules, ...extra },
  };
}

function gateway(listeners: unknown[]): Doc {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'gw' },
    spec: { gatewayClassName: 'example', listeners },
  };
}

describe('invalid Gateway API objects get the CEL rule messages', () => {
  it('refuses a RequestRedirect filter beside backendRefs', () => {
    const object = route([
      {
        filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }],
        backendRefs: [{ name: 'svc', port: 80 }],
      },
    ]);
    expect(create(object)).toEqual([
      'spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs',
    ]);
  });

  it('refuses a relative path prefix', () => {
    const object = route([
      { matches: [{ path: { type: 'PathPrefix', value: 'bar' } }], backendRefs: [{ name: 'svc', port: 80 }] },
    ]);
    expect(create(object)).toEqual([
      `spec.rules[0].matches[0].path: Invalid value: value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']`,
    ]);
  });

  it('refuses a Service backend without a port', () => {
    expect(create(route([{ backendRefs: [{ name: 'svc' }] }]))).toEqual([
      'spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference',
    ]);
  });

  it('refuses TLS on an HTTP listener and duplicate listener names', () => {
    const object = gateway([
      {
        name: 'a',
        protocol: 'HTTP',
        port: 80,
        tls: { mode: 'Terminate', certificateRefs: [{ name: 'cert' }] },
      },
      { name: 'a', protocol: 'HTTP', port: 81 },
    ]);
    expect(create(object)).toEqual([
      'spec.listeners[1]: Duplicate value: {"name":"a"}',
      "spec.listeners: Invalid value: tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
      'spec.listeners: Invalid value: Listener name must be unique within the Gateway',
    ]);
  });

  it('skips CEL rules after a type error and says so', () => {
    expect(create(route([{ backendRefs: [{ name: 'svc', port: 'eighty' }] }]))).toEqual([
      'spec.rules[0].backendRefs[0].port: Invalid value: "string": spec.rules[0].backendRefs[0].port in body must be of type integer: "string"',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
});
