import type { GroupVersionKind } from '@kapi/apimachinery';
import type { InstalledResource } from '../discovery/discovery-documents.js';
import { definitionAt } from '../resource-definition.js';
import { commonDescriptions, metaNames, type JSONSchema } from './meta-definitions.js';
import { scaleDefinitions } from './scale-definitions.js';
import { externalSubresourceDefinitions } from './subresource-definitions.js';

/** Names the OpenAPI definition of a kind; undefined falls back to {@link defaultDefinitionName}. */
export type DefinitionNamer = (gvk: GroupVersionKind) => string | undefined;

/** The two document flavours: Swagger 2.0 (`/openapi/v2`) and OpenAPI 3.0 (`/openapi/v3/...`). */
export type OpenAPIFlavour = 'v2' | 'v3';

/** `#/definitions/<name>` or `#/components/schemas/<name>`. */
export function refFor(flavour: OpenAPIFlavour): (name: string) => string {
  return flavour === 'v2' ? (name) => `#/definitions/${name}` : (name) => `#/components/schemas/${name}`;
}

const builtInPackages: Record<string, string> = {
  '': 'io.k8s.api.core',
  'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
};

const legacyBuiltInGroups = new Set(['apps', 'autoscaling', 'batch', 'policy', 'extensions']);

/**
 * Upstream-style definition names: `io.k8s.api.core.v1.ConfigMap`, `io.k8s.api.apps.v1.Deployment`,
 * `io.k8s.api.rbac.v1.Role` for `*.k8s.io` groups; other groups use the reversed group name,
 * `com.example.v1.Widget`.
 */
export function defaultDefinitionName(gvk: GroupVersionKind): string {
  const known = builtInPackages[gvk.group];
  if (known) return `${known}.${gvk.version}.${gvk.kind}`;
  if (legacyBuiltInGroups.has(gvk.group) || gvk.group.endsWith('.k8s.io')) {
    return `io.k8s.api.${gvk.group.split('.')[0]}.${gvk.version}.${gvk.kind}`;
  }
  return customResourceDefinitionName(gvk);
}

/** How upstream names a custom resource's definitions: the reversed group, `io.k8s.networking.gateway.v1.HTTPRoute`. */
export function customResourceDefinitionName(gvk: GroupVersionKind): string {
  return `${gvk.group.split('.').reverse().join('.')}.${gvk.version}.${gvk.kind}`;
}

/** Rewrites JSON-Schema-isms TypeBox produces into what OpenAPI (and kubectl's parser) understands. */
export function normalizeSchema(schema: unknown, flavour: OpenAPIFlavour): unknown {
  if (Array.isArray(schema)) return schema.map((item) => normalizeSchema(item, flavour));
  if (typeof schema !== 'object' || schema === null) return schema;
  const input = schema as JSONSchema;
  const output: JSONSchema = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      output[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, normalizeSchema(child, flavour)]));
      continue;
    }
    if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
      const patterns = Object.values(value);
      if (patterns.length === 1 && input['additionalProperties'] === undefined) {
        output['additionalProperties'] = normalizeSchema(patterns[0], flavour);
      }
      continue;
    }
    if (key === 'const') {
      output['enum'] = [value];
      continue;
    }
    if (key === 'nullable' && flavour === 'v2') continue;
    output[key] = typeof value === 'object' ? normalizeSchema(value, flavour) : value;
  }
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const options = output[combinator];
    if (!Array.isArray(options)) continue;
    const nonNull = options.filter((option) => !(typeof option === 'object' && option !== null && (option as JSONSchema)['type'] === 'null'));
    if (nonNull.length !== options.length) {
      if (flavour === 'v3') output['nullable'] = true;
      if (nonNull.length === 1 && typeof nonNull[0] === 'object') {
        delete output[combinator];
        Object.assign(output, nonNull[0]);
      } else {
        output[combinator] = nonNull;
      }
    }
  }
  return output;
}

/** A property referring to definition `name` (metadata; a Scale's spec and status): v3 wraps the `$ref` in `allOf`, as upstream. */
export function metadataProperty(flavour: OpenAPIFlavour, name: string, description: string): JSONSchema {
  const ref = refFor(flavour)(name);
  return flavour === 'v2' ? { $ref: ref, description } : { allOf: [{ $ref: ref }], default: {}, description };
}

/** The permissive schema used when the scheme has none for a kind. */
function fallbackSchema(): JSONSchema {
  return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

/**
 * The definition of one kind: `source` (the scheme's schema; undefined gives a permissive object schema)
 * normalised for the flavour, with apiVersion, kind, metadata (a `$ref` to ObjectMeta) and
 * `x-kubernetes-group-version-kind`.
 */
export function kindDefinition(gvk: GroupVersionKind, source: JSONSchema | undefined, flavour: OpenAPIFlavour): JSONSchema {
  const schema = normalizeSchema(JSON.parse(JSON.stringify(source ?? fallbackSchema())), flavour) as JSONSchema;
  const properties = { ...((schema['properties'] as JSONSchema | undefined) ?? {}) };
  properties['apiVersion'] = { type: 'string', description: commonDescriptions.apiVersion, ...(properties['apiVersion'] as JSONSchema | undefined) };
  properties['kind'] = { type: 'string', description: commonDescriptions.kind, ...(properties['kind'] as JSONSchema | undefined) };
  properties['metadata'] = metadataProperty(flavour, metaNames.objectMeta, commonDescriptions.metadata);
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]).filter((name) => name !== 'metadata') : [];
  const kindSchema: JSONSchema = { ...schema, type: 'object', properties };
  if (required.length > 0) kindSchema['required'] = required;
  else delete kindSchema['required'];
  kindSchema['x-kubernetes-group-version-kind'] = [gvk];
  return kindSchema;
}

/**
 * The definitions of one resource at one version: the kind (metadata as a `$ref` to ObjectMeta) and its
 * list, each with `x-kubernetes-group-version-kind`, plus autoscaling/v1 Scale for a `/scale` subresource and
 * the kinds of subresources served elsewhere (authentication.k8s.io/v1 TokenRequest for `serviceaccounts/token`).
 */
export function resourceDefinitions(
  installed: InstalledResource,
  version: string,
  options: { schemaFor: (gvk: GroupVersionKind) => JSONSchema | undefined; definitionName: (gvk: GroupVersionKind) => string; flavour: OpenAPIFlavour },
): Record<string, JSONSchema> {
  const { definition } = installed;
  const gvk = { group: definition.group, version, kind: definition.kind };
  const listKind = definition.listKind ?? `${definition.kind}List`;
  const listGvk = { ...gvk, kind: listKind };
  const kindSchema = kindDefinition(gvk, options.schemaFor(gvk), options.flavour);

  const kindRef = refFor(options.flavour)(options.definitionName(gvk));
  const listSchema: JSONSchema = {
    type: 'object',
    description: `${listKind} is a list of ${definition.kind}`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
      items: { type: 'array', description: `List of ${definition.resource}.`, items: { $ref: kindRef } },
      kind: { type: 'string', description: commonDescriptions.kind },
      metadata: metadataProperty(options.flavour, metaNames.listMeta, commonDescriptions.listMetadata),
    },
    'x-kubernetes-group-version-kind': [listGvk],
  };
  const atVersion = definitionAt(definition, version);
  const scale = atVersion.subresources?.scale ? scaleDefinitions(options.flavour) : {};
  const external = externalSubresourceDefinitions(atVersion, options);
  return { ...external, [options.definitionName(gvk)]: kindSchema, [options.definitionName(listGvk)]: listSchema, ...scale };
}
