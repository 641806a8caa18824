import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { kindSchema } from './kind-schema.js';
import type { KubeObject } from './meta-types.js';
import { Scheme } from './scheme.js';

const group = 'example.com';
const shapeAnnotation = 'widgets.example.com/shape';

const widgetV1 = kindSchema({
  group,
  version: 'v1',
  kind: 'Widget',
  spec: Type.Object({
    size: Type.Integer({ minimum: 1, default: 1 }),
    color: Type.Optional(Type.String({ enum: ['red', 'blue'], default: 'red' })),
    parts: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), count: Type.Optional(Type.Integer({ default: 1 })) })),
    ),
    extra: Type.Optional(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true })),
    settings: Type.Optional(Type.Record(Type.String(), Type.Object({ value: Type.String() }))),
  }),
  status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
});

const widgetV2 = kindSchema({
  group,
  version: 'v2',
  kind: 'Widget',
  spec: Type.Object({
    dimensions: Type.Object({ size: Type.Integer({ minimum: 1, default: 1 }) }, { default: {} }),
    color: Type.Optional(Type.String({ enum: ['red', 'blue'] })),
    shape: Type.Optional(Type.String()),
    parts: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), count: Type.Optional(Type.Integer()) })),
    ),
    extra: Type.Optional(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true })),
    settings: Type.Optional(Type.Record(Type.String(), Type.Object({ value: Type.String() }))),
  }),
  status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
});

interface Spec {
  [field: string]: unknown;
}

function newScheme(): Scheme {
  const scheme = new Scheme();
  scheme.addKind({ group, version: 'v1', kind: 'Widget', schema: widgetV1 });
  scheme.addKind({
    group,
    version: 'v2',
    kind: 'Widget',
    schema: widgetV2,
    defaulter: (object) => {
      const spec = object['spec'] as Spec | undefined;
      if (spec && spec['shape'] === undefined) spec['shape'] = 'square';
    },
    validator: (object) => {
      const spec = object['spec'] as Spec | undefined;
      return spec?.['shape'] === 'circle' && spec['color'] === 'blue'
        ? [{ field: 'spec.shape', type: 'FieldValueForbidden', detail: 'blue circles are not allowed' }]
        : [];
    },
  });
  scheme.setHubVersion(group, 'Widget', 'v2');
  scheme.addConversion({
    group,
    kind: 'Widget',
    version: 'v1',
    toHub: (object) => {
      const { size, ...spec } = (object['spec'] ?? {}) as Spec;
      const annotations = { ...object.metadata.annotations };
      const shape = annotations[shapeAnnotation];
      delete annotations[shapeAnnotation];
      const metadata: KubeObject['metadata'] = { ...object.metadata };
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
      else delete metadata.annotations;
      const hubSpec: Spec = { ...spec, dimensions: { size } };
      if (shape !== undefined) hubSpec['shape'] = shape;
      return { ...object, metadata, spec: hubSpec };
    },
    fromHub: (object) => {
      const { dimensions, shape, ...spec } = (object['spec'] ?? {}) as Spec;
      const metadata = { ...object.metadata };
      if (typeof shape === 'string')
        metadata.annotations = { ...metadata.annotations, [shapeAnnotation]: shape };
      return {
        ...object,
        metadata,
        spec: { ...spec, size: (dimensions as { size?: number } | undefined)?.size },
      };
    },
  });
  return scheme;
}

function widget(version: string, spec: Spec, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default' },
    spec,
    ...extra,
  };
}

describe('Scheme registry', () => {
  it('knows kinds, versions and the hub', () => {
    const scheme = newScheme();
    expect(scheme.versionsOf(group, 'Widget')).toEqual(['v1', 'v2']);
    expect(scheme.hubVersion(group, 'Widget')).toBe('v2');
    expect(scheme.kindFor({ group, version: 'v1', kind: 'Widget' })?.schema).toBe(widgetV1);
    expect(scheme.kindFor({ group, version: 'v3', kind: 'Widget' })).toBeUndefined();
    expect(scheme.versionsOf(group, 'Gadget')).toEqual([]);
    expect(() => scheme.addKind({ group, version: 'v1', kind: 'Widget', schema: widgetV1 })).toThrow(
      /already registered/,
    );
    expect(() => scheme.hubVersion(group, 'Gadget')).toThrow(/no kind "Gadget"/);
  });

  it('defaults the hub to the first version added', () => {
    const scheme = new Scheme();
    scheme.addKind({
      group: '',
      version: 'v1',
      kind: 'Thing',
      schema: kindSchema({ apiVersion: 'v1', kind: 'Thing' }),
    });
    expect(scheme.hubVersion('', 'Thing')).toBe('v1');
    const thing = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a' } };
    expect(scheme.toHub(thing)).toBe(thing);
    expect(scheme.convert(thing, { group: '', version: 'v1' })).toBe(thing);
  });

  it('forgets a removed kind at every version, so it can be registered again', () => {
    const scheme = newScheme();
    const widget = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' }, spec: { size: 1 } };
    scheme.toHub(widget);
    scheme.removeKind(group, 'Widget');
    expect(scheme.versionsOf(group, 'Widget')).toEqual([]);
    expect(scheme.recognizes({ group, version: 'v1', kind: 'Widget' })).toBe(false);
    expect(() => scheme.toHub(widget)).toThrow(/no kind "Widget"/);
    scheme.addKind({ group, version: 'v1', kind: 'Widget', schema: widgetV1 });
    expect(scheme.hubVersion(group, 'Widget')).toBe('v1');
  });
});

describe('Scheme conversion', () => {
  it('converts v1 to the hub and back losslessly', () => {
    const scheme = newScheme();
    const v1 = widget('v1', { size: 3, color: 'blue' }, { status: { ready: true } });
    const original = structuredClone(v1);
    const hub = scheme.toHub(v1);
    expect(hub).toEqual({
      apiVersion: 'example.com/v2',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { color: 'blue', dimensions: { size: 3 } },
      status: { ready: true },
    });
    expect(v1).toEqual(original);
    expect(scheme.fromHub(hub, 'v1')).toEqual(original);
  });

  it('keeps v2-only fields through a v1 round trip', () => {
    const scheme = newScheme();
    const v2 = widget('v2', { dimensions: { size: 2 }, shape: 'circle' });
    const v1 = scheme.convert(v2, { group, version: 'v1' });
    expect(v1.apiVersion).toBe('example.com/v1');
    expect(v1.metadata.annotations).toEqual({ [shapeAnnotation]: 'circle' });
    expect(v1['spec']).toEqual({ size: 2 });
    expect(scheme.convert(v1, { group, version: 'v2' })).toEqual(v2);
  });

  it('rejects unregistered versions and groups', () => {
    const scheme = newScheme();
    expect(() => scheme.convert(widget('v3', {}), { group, version: 'v1' })).toThrow(
      'no kind "Widget" is registered for version "example.com/v3" in scheme',
    );
    expect(() => scheme.convert(widget('v1', { size: 1 }), { group, version: 'v9' })).toThrow(
      /example.com\/v9/,
    );
    expect(() => scheme.convert(widget('v1', { size: 1 }), { group: 'other', version: 'v1' })).toThrow(
      /cannot be converted/,
    );
  });
});

describe('Scheme defaults and validation', () => {
  it('applies schema defaults where the parent exists, then the defaulter', () => {
    const scheme = newScheme();
    const v1 = scheme.applyDefaults(widget('v1', { parts: [{ name: 'a' }, { name: 'b', count: 5 }] }));
    expect(v1['spec']).toEqual({
      size: 1,
      color: 'red',
      parts: [
        { name: 'a', count: 1 },
        { name: 'b', count: 5 },
      ],
    });
    const noSpec = scheme.applyDefaults(widget('v1', {}, {}));
    expect(noSpec['status']).toBeUndefined();
    const v2 = scheme.applyDefaults(widget('v2', {}));
    expect(v2['spec']).toEqual({ dimensions: { size: 1 }, shape: 'square' });
  });

  it('reports schema errors with field paths, then the validator', () => {
    const scheme = newScheme();
    const errors = scheme.validate(
      widget(
        'v1',
        { size: 'big', color: 'green', parts: [{ count: 1 }] },
        { metadata: { name: 'w', labels: { a: 1 } as never } },
      ),
    );
    expect(errors.map((error) => [error.field, error.type])).toEqual([
      ['metadata.labels[a]', 'FieldValueInvalid'],
      ['spec.size', 'FieldValueInvalid'],
      ['spec.color', 'FieldValueNotSupported'],
      ['spec.parts[0].name', 'FieldValueRequired'],
    ]);
    expect(errors[1]?.detail).toBe('spec.size in body must be of type integer: "string"');
    expect(
      scheme.validate(widget('v2', { dimensions: { size: 0 }, shape: 'circle', color: 'blue' })),
    ).toEqual([
      {
        field: 'spec.dimensions.size',
        type: 'FieldValueInvalid',
        value: 0,
        detail: 'spec.dimensions.size in body should be greater than or equal to 1',
      },
      { field: 'spec.shape', type: 'FieldValueForbidden', detail: 'blue circles are not allowed' },
    ]);
  });
});

describe('Scheme defaulter and validator input', () => {
  /** A kind whose defaulter and validator trust the schema's types, as Go's do. */
  function trustingScheme(calls: string[]): Scheme {
    const scheme = new Scheme();
    scheme.addKind({
      group,
      version: 'v1',
      kind: 'Widget',
      schema: widgetV1,
      defaulter: (object) => {
        calls.push('defaulter');
        const spec = object['spec'] as { parts?: Array<{ name: string }> };
        for (const part of spec.parts ?? []) part.name = part.name.toLowerCase();
      },
      validator: (object) => {
        calls.push('validator');
        const spec = object['spec'] as { parts?: Array<{ name: string }> };
        return (spec.parts ?? []).some((part) => part.name.startsWith('x'))
          ? [{ field: 'spec.parts', type: 'FieldValueForbidden', detail: 'no x parts' }]
          : [];
      },
    });
    return scheme;
  }

  it('runs them on a well-typed object', () => {
    const calls: string[] = [];
    const scheme = trustingScheme(calls);
    const object = scheme.applyDefaults(widget('v1', { size: 0, parts: [{ name: 'XY' }] }));
    expect(object['spec']).toMatchObject({ parts: [{ name: 'xy', count: 1 }] });
    // A schema error that is not a type error still lets the validator speak.
    expect(scheme.validate(object).map((error) => error.field)).toEqual(['spec.size', 'spec.parts']);
    expect(calls).toEqual(['defaulter', 'validator']);
  });

  it('leaves them out when a value has the wrong type, and validation reports the type', () => {
    for (const spec of [{ parts: [{ name: 7 }] }, { parts: 'x' }, { parts: [7] }, { settings: { a: { value: [] } }, parts: [{ name: 1 }] }]) {
      const calls: string[] = [];
      const scheme = trustingScheme(calls);
      const object = scheme.applyDefaults(widget('v1', spec));
      const errors = scheme.validate(object);
      expect(calls).toEqual([]);
      expect(errors.some((error) => error.detail?.includes('must be of type'))).toBe(true);
    }
  });
});

describe('Scheme unknown fields', () => {
  it('finds and prunes fields the schema does not declare', () => {
    const scheme = newScheme();
    const object = widget(
      'v1',
      {
        size: 1,
        bogus: true,
        parts: [{ name: 'a', nope: 1 }],
        extra: { anything: { goes: 1 } },
        settings: { one: { value: 'x', stray: 2 } },
      },
      {
        metadata: {
          name: 'w',
          labels: { a: 'b' },
          managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }],
          weird: 1,
        } as never,
        top: 1,
      },
    );
    expect(scheme.findUnknownFields(object)).toEqual([
      'metadata.weird',
      'spec.bogus',
      'spec.parts[0].nope',
      'spec.settings[one].stray',
      'top',
    ]);
    const removed = scheme.prune(object);
    expect(removed).toHaveLength(5);
    expect(scheme.findUnknownFields(object)).toEqual([]);
    expect(object['spec']).toEqual({
      size: 1,
      parts: [{ name: 'a' }],
      extra: { anything: { goes: 1 } },
      settings: { one: { value: 'x' } },
    });
    expect(object.metadata.managedFields).toEqual([{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }]);
  });
});

describe('Scheme codec', () => {
  const decoder = new TextDecoder();

  it('encodes hub objects at the encoding version and decodes every version to the hub', () => {
    const scheme = newScheme();
    const codec = scheme.codecFor({ group, kind: 'Widget', encodingVersion: 'v1' });
    const hub = widget('v2', { dimensions: { size: 4 }, shape: 'oval' });
    const bytes = codec.encode(hub);
    const stored = JSON.parse(decoder.decode(bytes)) as KubeObject;
    expect(stored.apiVersion).toBe('example.com/v1');
    expect(stored['spec']).toEqual({ size: 4 });
    expect(hub['spec']).toEqual({ dimensions: { size: 4 }, shape: 'oval' });
    expect(codec.decode(bytes)).toEqual(hub);
    const v2Bytes = new TextEncoder().encode(JSON.stringify(hub));
    expect(codec.decode(v2Bytes)).toEqual(hub);
  });

  it('evaluates a function encoding version on every encode', () => {
    const scheme = newScheme();
    let version = 'v2';
    const codec = scheme.codecFor({ group, kind: 'Widget', encodingVersion: () => version });
    const hub = widget('v2', { dimensions: { size: 1 } });
    expect(decoder.decode(codec.encode(hub))).toBe(JSON.stringify(hub));
    version = 'v1';
    expect((JSON.parse(decoder.decode(codec.encode(hub))) as KubeObject).apiVersion).toBe('example.com/v1');
  });

  it('encodes verbatim only a hub object while the hub is the encoding version', () => {
    const scheme = newScheme();
    let version = 'v2';
    const codec = scheme.codecFor({ group, kind: 'Widget', encodingVersion: () => version });
    const hub = widget('v2', { dimensions: { size: 1 } });
    expect(codec.encodesVerbatim(hub)).toBe(true);
    expect(decoder.decode(codec.encode(hub))).toBe(JSON.stringify(hub));
    expect(codec.encodesVerbatim(widget('v1', { size: 1 }))).toBe(false);
    expect(codec.encodesVerbatim({ ...hub, kind: 'Gadget' })).toBe(false);
    expect(codec.encodesVerbatim({ ...hub, apiVersion: undefined } as unknown as KubeObject)).toBe(false);
    version = 'v1';
    expect(codec.encodesVerbatim(hub)).toBe(false);
    expect(codec.encodesVerbatim(widget('v1', { size: 1 }))).toBe(false);
  });

  it('does not convert when encoding at the hub version, and treats objects without apiVersion as hub', () => {
    const scheme = new Scheme();
    const thing = (version: string) => ({
      group,
      version,
      kind: 'Thing',
      schema: kindSchema({ group, version, kind: 'Thing' }),
    });
    scheme.addKind(thing('v2')).addKind(thing('v1'));
    let conversions = 0;
    scheme.addConversion({
      group,
      kind: 'Thing',
      version: 'v1',
      toHub: (object) => (conversions++, object),
      fromHub: (object) => (conversions++, object),
    });
    const codec = scheme.codecFor({ group, kind: 'Thing', encodingVersion: 'v2' });
    const hub = { apiVersion: 'example.com/v2', kind: 'Thing', metadata: { name: 'a' } };
    codec.decode(codec.encode(hub));
    expect(conversions).toBe(0);
    const bare = JSON.parse(decoder.decode(codec.encode({ metadata: { name: 'b' } }))) as KubeObject;
    expect(bare).toEqual({ apiVersion: 'example.com/v2', kind: 'Thing', metadata: { name: 'b' } });
    const fromV1 = JSON.parse(
      decoder.decode(codec.encode({ ...hub, apiVersion: 'example.com/v1' })),
    ) as KubeObject;
    expect(fromV1.apiVersion).toBe('example.com/v2');
    expect(conversions).toBe(1);
  });

  it('decodes, without decodableVersions, every registered version of the kind and no other', () => {
    const scheme = newScheme();
    const codec = scheme.codecFor({ group, kind: 'Widget', encodingVersion: 'v2' });
    const v1Bytes = new TextEncoder().encode(JSON.stringify(widget('v1', { size: 3 })));
    expect(codec.decode(v1Bytes).apiVersion).toBe('example.com/v2');
    const v3Bytes = new TextEncoder().encode(JSON.stringify({ ...widget('v2', {}), apiVersion: 'example.com/v3' }));
    expect(() => codec.decode(v3Bytes)).toThrow('apiVersion "example.com/v3" of kind Widget is not decodable by this server');
  });

  it('rejects versions outside decodableVersions and foreign kinds', () => {
    const scheme = newScheme();
    const codec = scheme.codecFor({
      group,
      kind: 'Widget',
      encodingVersion: 'v2',
      decodableVersions: ['v2'],
    });
    const v1Bytes = new TextEncoder().encode(JSON.stringify(widget('v1', { size: 1 })));
    expect(() => codec.decode(v1Bytes)).toThrow(/example.com\/v1/);
    const gadget = new TextEncoder().encode(
      JSON.stringify({ apiVersion: 'example.com/v2', kind: 'Gadget', metadata: {} }),
    );
    expect(() => codec.decode(gadget)).toThrow(/Gadget/);
    expect(() => codec.decode(new TextEncoder().encode('[1]'))).toThrow();
  });
});

describe('Scheme openAPISchema', () => {
  it('returns plain JSON with x-kubernetes-group-version-kind', () => {
    const scheme = newScheme();
    const schema = scheme.openAPISchema({ group, version: 'v2', kind: 'Widget' });
    expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group, version: 'v2', kind: 'Widget' }]);
    expect(Object.getOwnPropertySymbols(schema)).toEqual([]);
    expect((schema['properties'] as Record<string, unknown>)['spec']).toBeDefined();
    expect(widgetV2).not.toHaveProperty('x-kubernetes-group-version-kind');
  });
});
