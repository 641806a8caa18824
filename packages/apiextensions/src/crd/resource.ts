import {
  StatusError,
  Type,
  kindSchema,
  setCondition,
  type FieldError,
  type KindDefinition,
  type KubeObject,
} from '@kapi/apimachinery';
import type { ResourceDefinition, ResourceStrategy } from '@kapi/server';
import { validateCustomResourceSchema } from '../schema/validate-custom-resource-schema.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { isRecord } from '../schema/schema-node.js';
import { schemaDecodeError } from './schema-types.js';
import {
  APIEXTENSIONS_GROUP,
  CLEANUP_FINALIZER,
  isConditionTrue,
  storageVersionOf,
  type CustomResourceDefinition,
} from './types.js';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
  validateStoredVersions,
} from './validation.js';

// Descriptions are upstream's (kubernetes/kubernetes api/openapi-spec/v3/
// apis__apiextensions.k8s.io__v1_openapi.json), verbatim, for `kubectl explain`; a version's schema and
// subresources, conversion and conditions are schemaless here, so only the fields themselves are described.
const free = (description?: string) =>
  Type.Object(
    {},
    {
      additionalProperties: true,
      'x-kubernetes-preserve-unknown-fields': true,
      ...(description ? { description } : {}),
    },
  );
const strings = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const namesProperties = {
  plural: Type.String({
    description:
      'plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase.',
  }),
  singular: Type.Optional(
    Type.String({
      description:
        'singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.',
    }),
  ),
  shortNames: strings(
    'shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.',
  ),
  kind: Type.String({
    description:
      'kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls.',
  }),
  listKind: Type.Optional(
    Type.String({
      description: 'listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".',
    }),
  ),
  categories: strings(
    "categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`.",
  ),
};
const namesSchema = Type.Object(namesProperties, {
  description: 'names specify the resource and kind names for the custom resource.',
});

// A version's fields are typed (a value of the wrong JSON type is a 400 decode error, as upstream); its
// schema and subresources stay free-form (openAPIV3Schema is checked by schemaDecodeError).
const columnSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'name is a human readable name for the column.' })),
    type: Type.Optional(Type.String({
      description:
        'type is an OpenAPI type definition for this column. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.',
      }),
    ),
    format: Type.Optional(
      Type.String({
        description:
          "format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.",
      }),
    ),
    description: Type.Optional(Type.String({ description: 'description is a human readable description of this column.' })),
    priority: Type.Optional(
      Type.Integer({
        format: 'int32',
        description:
          'priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0.',
      }),
    ),
    jsonPath: Type.Optional(Type.String({
      description:
        'jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.',
      }),
    ),
  },
  { description: 'CustomResourceColumnDefinition specifies a column for server side printing.' },
);
const selectableFieldSchema = Type.Object(
  {
    jsonPath: Type.Optional(Type.String({
      description:
        'jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. Only JSON paths without the array notation are allowed. Must point to a field of type string, boolean or integer. Types with enum values and strings with formats are allowed. If jsonPath refers to absent field in a resource, the jsonPath evaluates to an empty string. Must not point to metdata fields. Required.',
      }),
    ),
  },
  { description: 'SelectableField specifies the JSON path of a field that may be used with field selectors.' },
);
const versionSchema = Type.Object(
  {
    name: Type.Optional(Type.String({
      description:
        'name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true.',
      }),
    ),
    served: Type.Optional(Type.Boolean({ description: 'served is a flag enabling/disabling this version from being served via REST APIs' })),
    storage: Type.Optional(Type.Boolean({
      description:
        'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      }),
    ),
    deprecated: Type.Optional(
      Type.Boolean({
        description:
          'deprecated indicates this version of the custom resource API is deprecated. When set to true, API requests to this version receive a warning header in the server response. Defaults to false.',
      }),
    ),
    deprecationWarning: Type.Optional(
      Type.String({
        description:
          'deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true. The default warning indicates this version is deprecated and recommends use of the newest served version of equal or greater stability, if one exists.',
      }),
    ),
    schema: Type.Optional(free('schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.')),
    subresources: Type.Optional(free('subresources specify what subresources this version of the defined custom resource have.')),
    additionalPrinterColumns: Type.Optional(
      Type.Array(columnSchema, {
        description:
          'additionalPrinterColumns specifies additional columns returned in Table output. See https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables for details. If no columns are specified, a single column displaying the age of the custom resource is used.',
      }),
    ),
    selectableFields: Type.Optional(
      Type.Array(selectableFieldSchema, {
        description:
          'selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed. See https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors',
      }),
    ),
  },
  { description: 'CustomResourceDefinitionVersion describes a version for CRD.' },
);

const crdSchema = kindSchema({
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  description:
    'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
  spec: Type.Object(
    {
      group: Type.String({
        description:
          'group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
      }),
      names: namesSchema,
      scope: Type.String({
        description:
          'scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.',
      }),
      versions: Type.Array(versionSchema, {
        description:
          'versions is the list of all API versions of the defined custom resource. Version names are used to compute the order in which served versions are listed in API discovery. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
      }),
      conversion: Type.Optional(free('conversion defines conversion settings for the CRD.')),
      preserveUnknownFields: Type.Optional(
        Type.Boolean({
          description:
            'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields inside metadata are always preserved. This field is deprecated in favor of setting `x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`. See https://kubernetes.io/docs/tasks/access-kubernetes-api/custom-resources/custom-resource-definitions/#pruning-versus-preserving-unknown-fields for details.',
        }),
      ),
    },
    { description: 'spec describes how the user wants the resources to appear' },
  ),
  status: Type.Object(
    {
      conditions: Type.Optional(
        Type.Array(
          free('CustomResourceDefinitionCondition contains details for the current condition of this pod.'),
          {
            nullable: true,
            description: 'conditions indicate state for particular aspects of a CustomResourceDefinition',
          },
        ),
      ),
      acceptedNames: Type.Optional(
        Type.Object(
          {
            ...namesProperties,
            plural: Type.Optional(namesProperties.plural),
            kind: Type.Optional(namesProperties.kind),
          },
          {
            description:
              'acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.',
          },
        ),
      ),
      storedVersions: Type.Optional(
        Type.Array(Type.String(), {
          nullable: true,
          description:
            'storedVersions lists all versions of CustomResources that were ever persisted. Tracking these versions allows a migration path for stored versions in etcd. The field is mutable so a migration controller can finish a migration to another version (ensuring no old objects are left in storage), and then remove the rest of the versions from this list. Versions may not be removed from `spec.versions` while they exist in this list.',
        }),
      ),
    },
    { description: 'status indicates the actual state of the CustomResourceDefinition' },
  ),
});

/**
 * Fills the v1 defaults: singular, listKind and conversion strategy. The scheme runs it only on a
 * well-typed object; `conversion` is schemaless here, so its type is still checked.
 */
function defaultCustomResourceDefinition(object: KubeObject): void {
  // A missing spec is an empty one (as Go decodes it): validation then names each required field.
  object['spec'] ??= {};
  const spec = object['spec'] as Partial<CustomResourceDefinition['spec']>;
  if (!spec.names) return;
  if (spec.names.kind) {
    spec.names.singular ||= spec.names.kind.toLowerCase();
    spec.names.listKind ||= `${spec.names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  if (isRecord(spec.conversion)) spec.conversion.strategy ||= 'None';
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition, for the scheme. */
export const customResourceDefinitionKind: KindDefinition = {
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  schema: crdSchema,
  defaulter: defaultCustomResourceDefinition,
};

/** Every version's structural-schema errors (those that refuse the CRD). */
function validateSchemas(crd: CustomResourceDefinition): FieldError[] {
  const errors: FieldError[] = [];
  (crd.spec.versions ?? []).forEach((version, i) => {
    const schema = version.schema?.openAPIV3Schema;
    if (schema)
      errors.push(
        ...validateCustomResourceSchema(
          schema as JSONSchemaProps,
          `spec.versions[${i}].schema.openAPIV3Schema`,
        ).errors,
      );
  });
  return errors;
}

/** Adds the storage version to status.storedVersions when missing (never removes one). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = storageVersionOf(crd);
  if (!storage) return;
  const status = (crd.status ??= { acceptedNames: { plural: '', kind: '' }, storedVersions: [] });
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/** A 400 for a version schema that would not decode (see schemaDecodeError); nulls in it dropped. */
function checkSchemaTypes(crd: CustomResourceDefinition): void {
  const error = schemaDecodeError(crd.spec.versions);
  if (error) throw StatusError.badRequest(`CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${error}`);
}

const strategy: ResourceStrategy = {
  prepareForCreate(object) {
    const crd = object as CustomResourceDefinition;
    checkSchemaTypes(crd);
    crd.status = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
    recordStorageVersion(crd);
  },
  prepareForUpdate(object, _old, scope) {
    if (scope.subresource !== '') return;
    checkSchemaTypes(object as CustomResourceDefinition);
    recordStorageVersion(object as CustomResourceDefinition);
  },
  validate(object) {
    const crd = object as CustomResourceDefinition;
    return [
      ...validateCustomResourceDefinition(crd),
      ...validateSchemas(crd),
      ...validateStoredVersions(crd),
    ];
  },
  validateUpdate(object, old, scope) {
    if (scope.subresource === 'status') return [];
    const crd = object as CustomResourceDefinition;
    const previous = old as CustomResourceDefinition;
    return [
      ...validateCustomResourceDefinitionUpdate(crd, previous, isConditionTrue(previous, 'Established')),
      ...validateSchemas(crd),
      ...validateStoredVersions(crd),
    ];
  },
  prepareForDelete(object) {
    const crd = object as CustomResourceDefinition;
    const finalizers = object.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER))
      object.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    const status = (crd.status ??= { acceptedNames: { plural: '', kind: '' }, storedVersions: [] });
    status.conditions = setCondition(status.conditions ?? undefined, {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  },
};

/** The customresourcedefinitions resource (cluster-scoped, with /status). */
export const customResourceDefinitionResource: ResourceDefinition = {
  group: APIEXTENSIONS_GROUP,
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  singularName: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  versions: ['v1'],
  subresources: { status: true },
  // Upstream's default table convertor: the creation time itself (RFC 3339), not an age.
  printerColumns: [
    {
      name: 'Created At',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      cell: (object) => object.metadata.creationTimestamp ?? null,
    },
  ],
  strategy,
};
