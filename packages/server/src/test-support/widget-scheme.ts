import { Scheme, Type, kindSchema, type FieldError, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.js';

/** The sample group of the server tests. */
export const GROUP = 'example.com';

const ports = Type.Array(Type.Object({ name: Type.String(), port: Type.Optional(Type.Integer()) }), {
  'x-kubernetes-patch-strategy': 'merge',
  'x-kubernetes-patch-merge-key': 'name',
});

const status = Type.Object({
  phase: Type.Optional(Type.String()),
  conditions: Type.Optional(
    Type.Array(Type.Object({ type: Type.String(), status: Type.String() }, { additionalProperties: true }), {
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'type',
    }),
  ),
});

function sizeValidator(size: (object: KubeObject) => number | undefined) {
  return (object: KubeObject): FieldError[] => {
    const value = size(object);
    if (value !== undefined && (Number.isNaN(value) || value < 0)) {
      return [
        {
          field: 'spec.size',
          type: 'FieldValueInvalid',
          value,
          detail: 'must be greater than or equal to 0',
        },
      ];
    }
    return [];
  };
}

function spec(object: KubeObject): Record<string, unknown> | undefined {
  const value = object['spec'];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/**
 * A Scheme with `example.com` Widget at v1 (hub: `spec.size` integer) and v1beta1 (`spec.sizeText`
 * string), both with `spec.color` defaulting to `blue` and `spec.ports` merged by name.
 */
export function widgetScheme(): Scheme {
  const scheme = new Scheme();
  scheme.addKind({
    group: GROUP,
    version: 'v1',
    kind: 'Widget',
    schema: kindSchema({
      group: GROUP,
      version: 'v1',
      kind: 'Widget',
      spec: Type.Object({
        size: Type.Optional(Type.Integer()),
        color: Type.Optional(Type.String({ default: 'blue' })),
        ports: Type.Optional(ports),
      }),
      status,
    }),
    validator: sizeValidator((object) => spec(object)?.['size'] as number | undefined),
  });
  scheme.addKind({
    group: GROUP,
    version: 'v1beta1',
    kind: 'Widget',
    schema: kindSchema({
      group: GROUP,
      version: 'v1beta1',
      kind: 'Widget',
      spec: Type.Object({
        sizeText: Type.Optional(Type.String()),
        color: Type.Optional(Type.String({ default: 'blue' })),
        ports: Type.Optional(ports),
      }),
      status,
    }),
    validator: sizeValidator((object) => {
      const text = spec(object)?.['sizeText'];
      return text === undefined ? undefined : Number(text);
    }),
  });
  scheme.addConversion({
    group: GROUP,
    kind: 'Widget',
    version: 'v1beta1',
    toHub: (object) => {
      const value = spec(object);
      if (value && 'sizeText' in value) {
        value['size'] = Number(value['sizeText']);
        delete value['sizeText'];
      }
      return object;
    },
    fromHub: (object) => {
      const value = spec(object);
      if (value && 'size' in value) {
        value['sizeText'] = String(value['size']);
        delete value['size'];
      }
      return object;
    },
  });
  return scheme;
}

/** The sample resource: namespaced `widgets.example.com` with /status, served at v1 and v1beta1. */
export function widgetDefinition(overrides: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return {
    group: GROUP,
    resource: 'widgets',
    kind: 'Widget',
    namespaced: true,
    versions: ['v1', 'v1beta1'],
    subresources: { status: true },
    shortNames: ['wd'],
    printerColumns: [
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    ...overrides,
  };
}
