import type { FieldError, GroupVersion, GroupVersionKind, KubeObject } from '@kapi/apimachinery';
import type { Codec } from '@kapi/storage';
import type { ResourceDefinition } from '../resource-definition.js';
import type { CodecForOptions, SchemeLike } from '../scheme-like.js';

/**
 * Test stand-in for @kapi/apimachinery's Scheme (not written yet), for one kind: `example.com` Widget
 * at v1 (hub: `spec.size` number) and v1beta1 (`spec.sizeText` string).
 */
export const GROUP = 'example.com';

const portsSchema = {
  type: 'array',
  'x-kubernetes-patch-strategy': 'merge',
  'x-kubernetes-patch-merge-key': 'name',
  items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
};

function schemaOf(version: string): Record<string, unknown> {
  const sizeField = version === 'v1' ? { size: { type: 'integer' } } : { sizeText: { type: 'string' } };
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', properties: { ...sizeField, color: { type: 'string', default: 'blue' }, ports: portsSchema } },
      status: { type: 'object', properties: { phase: { type: 'string' }, conditions: { type: 'array' } } },
    },
  };
}

const topFields = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];
const metadataFields = [
  'name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields', 'selfLink',
];

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function versionOf(object: KubeObject): string {
  return (object.apiVersion ?? '').split('/')[1] ?? 'v1';
}

function specFields(version: string): string[] {
  return [version === 'v1' ? 'size' : 'sizeText', 'color', 'ports'];
}

/** A SchemeLike for the Widget kind. */
export class WidgetScheme implements SchemeLike {
  convert(object: KubeObject, target: GroupVersion): KubeObject {
    const hub = this.toHub(object);
    const result = structuredClone(hub);
    result.apiVersion = `${GROUP}/${target.version}`;
    result.kind = 'Widget';
    const spec = record(result['spec']);
    if (target.version === 'v1beta1' && spec && 'size' in spec) {
      spec['sizeText'] = String(spec['size']);
      delete spec['size'];
    }
    return result;
  }

  toHub(object: KubeObject): KubeObject {
    const result = structuredClone(object);
    const spec = record(result['spec']);
    if (versionOf(object) === 'v1beta1' && spec && 'sizeText' in spec) {
      spec['size'] = Number(spec['sizeText']);
      delete spec['sizeText'];
    }
    result.apiVersion = `${GROUP}/v1`;
    result.kind = 'Widget';
    return result;
  }

  applyDefaults(object: KubeObject): void {
    const spec = record(object['spec']);
    if (spec && spec['color'] === undefined) spec['color'] = 'blue';
  }

  validate(object: KubeObject): FieldError[] {
    const spec = record(object['spec']);
    const size = versionOf(object) === 'v1' ? spec?.['size'] : spec?.['sizeText'] === undefined ? undefined : Number(spec['sizeText']);
    if (typeof size === 'number' && (size < 0 || Number.isNaN(size))) {
      return [{ field: 'spec.size', type: 'FieldValueInvalid', value: size, detail: 'must be greater than or equal to 0' }];
    }
    return [];
  }

  findUnknownFields(object: KubeObject): string[] {
    const unknown = Object.keys(object).filter((key) => !topFields.includes(key));
    unknown.push(...Object.keys(object.metadata).filter((key) => !metadataFields.includes(key)).map((key) => `metadata.${key}`));
    const spec = record(object['spec']);
    if (spec) unknown.push(...Object.keys(spec).filter((key) => !specFields(versionOf(object)).includes(key)).map((key) => `spec.${key}`));
    return unknown;
  }

  prune(object: KubeObject): KubeObject {
    for (const path of this.findUnknownFields(object)) {
      const [first, second] = path.split('.');
      if (second === undefined && first) delete object[first];
      else if (first && second) delete record(object[first])?.[second];
    }
    return object;
  }

  codecFor(options: CodecForOptions): Codec {
    const version = typeof options.encodingVersion === 'function' ? options.encodingVersion : () => options.encodingVersion as string;
    return {
      encode: (object) => Buffer.from(JSON.stringify(this.convert(object, { group: GROUP, version: version() }))),
      decode: (data) => this.toHub(JSON.parse(Buffer.from(data).toString('utf8')) as KubeObject),
    };
  }

  kindFor(gvk: GroupVersionKind): { schema: unknown } | undefined {
    return gvk.group === GROUP && gvk.kind === 'Widget' ? { schema: schemaOf(gvk.version) } : undefined;
  }
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
