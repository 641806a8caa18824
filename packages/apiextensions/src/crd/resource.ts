import { Type, kindSchema, setCondition, type FieldError, type KindDefinition, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition, ResourceStrategy } from '@kapi/server';
import { validateCustomResourceSchema } from '../schema/validate-custom-resource-schema.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { isRecord } from '../schema/schema-node.js';
import {
  APIEXTENSIONS_GROUP,
  CLEANUP_FINALIZER,
  isConditionTrue,
  storageVersionOf,
  type CustomResourceDefinition,
} from './types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, validateStoredVersions } from './validation.js';

const free = () => Type.Object({}, { additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': true });
const strings = () => Type.Optional(Type.Array(Type.String()));
const namesSchema = Type.Object({
  plural: Type.String(),
  singular: Type.Optional(Type.String()),
  shortNames: strings(),
  kind: Type.String(),
  listKind: Type.Optional(Type.String()),
  categories: strings(),
});

const crdSchema = kindSchema({
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  spec: Type.Object({
    group: Type.String(),
    names: namesSchema,
    scope: Type.String(),
    versions: Type.Array(free()),
    conversion: Type.Optional(free()),
    preserveUnknownFields: Type.Optional(Type.Boolean()),
  }),
  status: Type.Object({
    conditions: Type.Optional(Type.Array(free(), { nullable: true })),
    acceptedNames: Type.Optional(Type.Object({ ...namesSchema.properties, plural: Type.Optional(Type.String()), kind: Type.Optional(Type.String()) })),
    storedVersions: Type.Optional(Type.Array(Type.String(), { nullable: true })),
  }),
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
    if (schema) errors.push(...validateCustomResourceSchema(schema as JSONSchemaProps, `spec.versions[${i}].schema.openAPIV3Schema`).errors);
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

const strategy: ResourceStrategy = {
  prepareForCreate(object) {
    const crd = object as CustomResourceDefinition;
    crd.status = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
    recordStorageVersion(crd);
  },
  prepareForUpdate(object, _old, scope) {
    if (scope.subresource === '') recordStorageVersion(object as CustomResourceDefinition);
  },
  validate(object) {
    const crd = object as CustomResourceDefinition;
    return [...validateCustomResourceDefinition(crd), ...validateSchemas(crd), ...validateStoredVersions(crd)];
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
    if (!finalizers.includes(CLEANUP_FINALIZER)) object.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
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
    { name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp', cell: (object) => object.metadata.creationTimestamp ?? null },
  ],
  strategy,
};
