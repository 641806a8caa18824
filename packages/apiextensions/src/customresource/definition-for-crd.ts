import { objectMetaSchema, type KindDefinition, type KubeObject, type TSchema } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition, ResourceStrategy } from '@kapi/server';
import type { AttributesFunc } from '@kapi/storage';
import { storageVersionOf, type CustomResourceDefinition } from '../crd/types.js';
import { sortVersionsKubeAware } from './version-order.js';

/** What serving one CRD takes: its kind at every version and the resource definition. */
export interface CustomResourceServing {
  kinds: KindDefinition[];
  definition: ResourceDefinition;
  storageVersion: string;
}

/** The value at a simple JSONPath (`.spec.a.b`, `.spec.list[0]`). */
export function valueAtPath(object: unknown, jsonPath: string): unknown {
  let current: unknown = object;
  for (const part of jsonPath.match(/\.[^.[]+|\[\d+\]|\['[^']+'\]/g) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = part.startsWith('.') ? part.slice(1) : part.startsWith("['") ? part.slice(2, -2) : Number(part.slice(1, -1));
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** The CR's full object schema: the CRD's schema with apiVersion, kind and ObjectMeta metadata. */
function objectSchema(crd: CustomResourceDefinition, schema: Record<string, unknown> | undefined): TSchema {
  const base = structuredClone(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const properties = { ...((base['properties'] as Record<string, unknown> | undefined) ?? {}) };
  properties['apiVersion'] = { type: 'string', ...(properties['apiVersion'] as object | undefined) };
  properties['kind'] = { type: 'string', ...(properties['kind'] as object | undefined) };
  properties['metadata'] = objectMetaSchema;
  base['properties'] = properties;
  base['description'] ??= `${crd.spec.names.kind} (${crd.spec.group})`;
  return base as unknown as TSchema;
}

function printerColumns(crd: CustomResourceDefinition, version: string): PrinterColumn[] | undefined {
  const columns = crd.spec.versions.find((v) => v.name === version)?.additionalPrinterColumns;
  if (!columns) return undefined;
  const hasAge = columns.some((column) => column.jsonPath === '.metadata.creationTimestamp');
  return [
    ...columns.map((column) => ({ ...column, type: column.type as PrinterColumn['type'] })),
    ...(hasAge ? [] : [{ name: 'Age', type: 'date' as const, jsonPath: '.metadata.creationTimestamp' }]),
  ];
}

/** Field-selector attributes: labels, metadata.name/namespace and every selectable field's value as text. */
function attributesFor(selectable: string[]): AttributesFunc {
  return (object: KubeObject) => {
    const fields: Record<string, string> = { 'metadata.name': object.metadata.name ?? '' };
    if (object.metadata.namespace !== undefined) fields['metadata.namespace'] = object.metadata.namespace;
    for (const path of selectable) {
      const value = valueAtPath(object, path);
      fields[path.slice(1)] = value === undefined || value === null ? '' : String(value as string);
    }
    return { labels: object.metadata.labels ?? {}, fields };
  };
}

/**
 * Translates a CRD into the kinds and resource definition the generic server serves: every served or
 * stored version is a kind (hub: the storage version; conversion None rewrites apiVersion only).
 */
export function customResourceServing(crd: CustomResourceDefinition, strategy: ResourceStrategy): CustomResourceServing {
  const names = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : crd.spec.names;
  const storageVersion = storageVersionOf(crd) ?? crd.spec.versions[0]?.name ?? '';
  const kind = names.kind;
  const kinds: KindDefinition[] = crd.spec.versions.map((version) => ({
    group: crd.spec.group,
    version: version.name,
    kind,
    listKind: names.listKind ?? `${kind}List`,
    schema: objectSchema(crd, version.schema?.openAPIV3Schema),
  }));
  const served = sortVersionsKubeAware(crd.spec.versions.filter((v) => v.served).map((v) => v.name));
  const preferred = served[0] ?? storageVersion;
  const selectable = (crd.spec.versions.find((v) => v.name === preferred)?.selectableFields ?? []).map((f) => f.jsonPath);
  const columns = printerColumns(crd, preferred);
  const definition: ResourceDefinition = {
    group: crd.spec.group,
    resource: names.plural,
    kind,
    listKind: names.listKind ?? `${kind}List`,
    singularName: names.singular ?? kind.toLowerCase(),
    namespaced: crd.spec.scope === 'Namespaced',
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    ...(names.categories ? { categories: names.categories } : {}),
    versions: served,
    storageVersion,
    subresources: { status: Boolean(crd.spec.versions.find((v) => v.name === preferred)?.subresources?.status) },
    ...(columns ? { printerColumns: columns } : {}),
    storagePrefix: `/${crd.spec.group}/${names.plural}`,
    selectableFields: selectable.map((path) => path.slice(1)),
    strategy: { ...strategy, getAttributes: attributesFor(selectable) },
  };
  return { kinds, definition, storageVersion };
}
