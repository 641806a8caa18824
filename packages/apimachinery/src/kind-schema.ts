import {
  Type,
  type TArray,
  type TObject,
  type TOptional,
  type TProperties,
  type TRecord,
  type TSchema,
  type TString,
} from '@sinclair/typebox';

/**
 * Kubernetes vendor extensions understood by kapi (OpenAPI, defaulting, pruning, strategic merge patch).
 * Pass them as TypeBox options: `Type.Array(item, { 'x-kubernetes-list-type': 'map', ... })`.
 */
export interface KubernetesSchemaExtensions {
  /** Fields not declared in the schema are kept (not pruned, not reported unknown). */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The object is a nested Kubernetes object: apiVersion, kind and metadata are implied. */
  'x-kubernetes-embedded-resource'?: boolean;
  /** The value may be an integer or a string (IntOrString). */
  'x-kubernetes-int-or-string'?: boolean;
  /** `atomic`, `set` (unique scalars) or `map` (items keyed by `x-kubernetes-list-map-keys`). */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  /** `atomic` or `granular` for objects. */
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** Strategic merge patch: the key identifying list items. */
  'x-kubernetes-patch-merge-key'?: string;
  /** Strategic merge patch: `merge`, `replace`, `retainKeys`, `merge,retainKeys`. */
  'x-kubernetes-patch-strategy'?: string;
  /** OpenAPI v3 nullable: `null` is an accepted value. */
  nullable?: boolean;
}

const timestamp = (): TOptional<TString> =>
  Type.Optional(Type.String({ format: 'date-time', nullable: true }));
const stringMap = (): TOptional<TRecord<TString, TString>> =>
  Type.Optional(Type.Record(Type.String(), Type.String()));

/** metav1.OwnerReference. */
export const ownerReferenceSchema = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    uid: Type.String(),
    controller: Type.Optional(Type.Boolean()),
    blockOwnerDeletion: Type.Optional(Type.Boolean()),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** A managedFields entry: kept exactly as given (free-form object). */
export const managedFieldsEntrySchema = Type.Object(
  {},
  { additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': true },
);

const objectMetaProperties = {
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  selfLink: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer({ format: 'int64' })),
  creationTimestamp: timestamp(),
  deletionTimestamp: timestamp(),
  deletionGracePeriodSeconds: Type.Optional(Type.Integer({ format: 'int64' })),
  labels: stringMap(),
  annotations: stringMap(),
  ownerReferences: Type.Optional(
    Type.Array(ownerReferenceSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    }),
  ),
  finalizers: Type.Optional(
    Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' }),
  ),
  managedFields: Type.Optional(Type.Array(managedFieldsEntrySchema, { 'x-kubernetes-list-type': 'atomic' })),
};

/** metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist). */
export const labelSelectorSchema = Type.Object(
  {
    matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
    matchExpressions: Type.Optional(
      Type.Array(
        Type.Object({ key: Type.String(), operator: Type.String(), values: Type.Optional(Type.Array(Type.String())) }),
      ),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** metav1.ObjectMeta as a schema (every field optional; managedFields kept as given). */
export const objectMetaSchema: TObject<typeof objectMetaProperties> = Type.Object(objectMetaProperties);

const listMetaProperties = {
  selfLink: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Type.Integer({ format: 'int64' })),
};

/** metav1.ListMeta as a schema. */
export const listMetaSchema: TObject<typeof listMetaProperties> = Type.Object(listMetaProperties);

/** The properties every kind has. */
export type KindBaseProperties = {
  apiVersion: TOptional<TString>;
  kind: TOptional<TString>;
  metadata: typeof objectMetaSchema;
};

type OptionalProperty<Name extends string, Schema> = Schema extends TSchema
  ? { [K in Name]: TOptional<Schema> }
  : unknown;

/** Options of {@link kindSchema}. */
export interface KindSchemaOptions<
  Spec extends TSchema | undefined,
  Status extends TSchema | undefined,
  Properties extends TProperties,
> {
  kind: string;
  /** Group and version, or `apiVersion` (`apps/v1`); only used in the description. */
  group?: string;
  version?: string;
  apiVersion?: string;
  /** The `spec` schema (optional property). */
  spec?: Spec;
  /** The `status` schema (optional property). */
  status?: Status;
  /** Other top-level properties (e.g. `data` of a ConfigMap). */
  properties?: Properties;
  /** Alias of `properties`. */
  extra?: Properties;
  description?: string;
  /** Vendor extensions or other schema options for the object itself. */
  extensions?: KubernetesSchemaExtensions & Record<string, unknown>;
}

/** The full schema of a kind: apiVersion, kind, metadata, spec?, status? and the given properties. */
export type KindSchema<
  Spec extends TSchema | undefined,
  Status extends TSchema | undefined,
  Properties extends TProperties,
> = TObject<
  KindBaseProperties & OptionalProperty<'spec', Spec> & OptionalProperty<'status', Status> & Properties
>;

/**
 * Builds the full object schema of a kind. Unknown-field handling (Kubernetes' pruning) is done by the
 * scheme from `properties`, not by TypeBox's `additionalProperties`.
 */
export function kindSchema<
  Spec extends TSchema | undefined = undefined,
  Status extends TSchema | undefined = undefined,
  Properties extends TProperties = Record<never, never>,
>(options: KindSchemaOptions<Spec, Status, Properties>): KindSchema<Spec, Status, Properties> {
  const properties: TProperties = {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: objectMetaSchema,
  };
  if (options.spec) properties['spec'] = Type.Optional(options.spec);
  if (options.status) properties['status'] = Type.Optional(options.status);
  Object.assign(properties, options.extra ?? {}, options.properties ?? {});
  const apiVersion =
    options.apiVersion ??
    (options.version === undefined
      ? undefined
      : options.group
        ? `${options.group}/${options.version}`
        : options.version);
  const description = options.description ?? (apiVersion ? `${options.kind} (${apiVersion})` : options.kind);
  return Type.Object(properties, { description, ...(options.extensions ?? {}) }) as KindSchema<
    Spec,
    Status,
    Properties
  >;
}

/** The properties of a `<Kind>List` schema. */
export type KindListProperties<Item extends TSchema> = {
  apiVersion: TOptional<TString>;
  kind: TOptional<TString>;
  metadata: TOptional<typeof listMetaSchema>;
  items: TArray<Item>;
};

/** The schema of a list kind (`WidgetList`): apiVersion, kind, ListMeta metadata and `items`. */
export function kindListSchema<Item extends TSchema>(options: {
  /** The list kind, e.g. `WidgetList`. */
  kind: string;
  items: Item;
  description?: string;
}): TObject<KindListProperties<Item>> {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(listMetaSchema),
      items: Type.Array(options.items),
    },
    {
      description: options.description ?? `${options.kind} is a list of ${options.kind.replace(/List$/, '')}`,
    },
  );
}
