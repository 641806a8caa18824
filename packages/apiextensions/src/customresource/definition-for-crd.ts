import { objectMetaSchema, type KindDefinition, type KubeObject, type TSchema } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition, ResourceStrategy, VersionOverrides } from '@kapi/server';
import type { AttributesFunc } from '@kapi/storage';
import {
  storageVersionOf,
  type CustomResourceColumnDefinition,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
} from '../crd/types.js';
import { scaleValidation } from './scale-validation.js';
import { valueAtPath } from './value-at-path.js';
import { sortVersionsKubeAware } from './version-order.js';

/** What serving one CRD takes: its kind at every version and the resource definition. */
export interface CustomResourceServing {
  kinds: KindDefinition[];
  definition: ResourceDefinition;
  storageVersion: string;
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

const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function printerColumns(columns: CustomResourceColumnDefinition[] | undefined): PrinterColumn[] | undefined {
  if (!columns) return undefined;
  const hasAge = columns.some((column) => column.jsonPath === '.metadata.creationTimestamp');
  return [
    // Upstream's custom resource convertor shows a path's first value.
    ...columns.map((column) => ({ ...column, type: column.type as PrinterColumn['type'], matches: 'first' as const })),
    ...(hasAge ? [] : [ageColumn]),
  ];
}

/**
 * What one version serves: its subresources, printer columns (Name and Age when it declares none, even
 * where other versions do), selectable fields and deprecation warning.
 */
function overridesOf(crd: CustomResourceDefinition, kind: string, version: CustomResourceDefinitionVersion): VersionOverrides {
  const columns = printerColumns(version.additionalPrinterColumns);
  const scale = version.subresources?.scale;
  return {
    ...(version.deprecated ? { deprecationWarning: version.deprecationWarning ?? `${crd.spec.group}/${version.name} ${kind} is deprecated` } : {}),
    subresources: { status: Boolean(version.subresources?.status), ...(scale ? { scale } : {}) },
    printerColumns: columns ?? [ageColumn],
    selectableFields: (version.selectableFields ?? []).map((field) => field.jsonPath.slice(1)),
  };
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
  const versionOverrides: Record<string, VersionOverrides> = {};
  for (const version of crd.spec.versions.filter((v) => v.served)) versionOverrides[version.name] = overridesOf(crd, kind, version);
  // The preferred version's overrides are the definition's own; its deprecation stays its own.
  const { deprecationWarning: _preferredOnly, ...preferredOverrides } = versionOverrides[preferred] ?? {};
  const scale = crd.spec.versions.find((v) => v.name === storageVersion)?.subresources?.scale;
  const selectable = [...new Set(crd.spec.versions.flatMap((v) => (v.selectableFields ?? []).map((f) => f.jsonPath)))];
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
    ...preferredOverrides,
    versionOverrides,
    storagePrefix: `/${crd.spec.group}/${names.plural}`,
    customResource: true,
    strategy: { ...strategy, ...(scale ? scaleValidation(scale) : {}), getAttributes: attributesFor(selectable) },
  };
  return { kinds, definition, storageVersion };
}
