/** The Go type of each ObjectMeta field a client may send, as encoding/json names it. */
const metaFieldTypes: Record<string, 'string' | 'int64' | '[]string' | 'map[string]string' | 'array'> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  deletionGracePeriodSeconds: 'int64',
  labels: 'map[string]string',
  annotations: 'map[string]string',
  finalizers: '[]string',
  ownerReferences: 'array',
  managedFields: 'array',
};
const metaFieldEntries = Object.entries(metaFieldTypes);

/** A struct in a list of ObjectMeta: its Go type name, and the JSON type of each field. */
interface ItemType {
  goType: string;
  fields: Record<string, 'string' | 'bool'>;
}

/** The Go types of the items of ObjectMeta's two lists of structs, and of their fields. */
const itemTypes = {
  ownerReferences: {
    goType: 'OwnerReference',
    fields: { apiVersion: 'string', kind: 'string', name: 'string', uid: 'string', controller: 'bool', blockOwnerDeletion: 'bool' },
  },
  managedFields: {
    goType: 'ManagedFieldsEntry',
    // fieldsV1 takes any JSON (Go keeps its raw bytes); the field manager copes with what it cannot read.
    fields: { manager: 'string', operation: 'string', apiVersion: 'string', time: 'string', fieldsType: 'string', subresource: 'string' },
  },
} as const satisfies Record<string, ItemType>;

/** encoding/json's error for an item of `ownerReferences` / `managedFields` (or one of its fields) of the wrong type. */
function itemTypeError(entry: unknown, field: string, item: ItemType): string | undefined {
  if (entry === null) return undefined;
  if (typeof entry !== 'object' || Array.isArray(entry)) return unmarshalError(entry, field, `v1.${item.goType}`);
  for (const [name, type] of Object.entries(item.fields)) {
    const value = (entry as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== (type === 'bool' ? 'boolean' : 'string'))
      return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${item.goType}.metadata.${field}.${name} of type ${type}`;
  }
  return undefined;
}

/** encoding/json's name of a JSON value's type. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** encoding/json's error for an ObjectMeta field holding a JSON value of the wrong type. */
function unmarshalError(found: unknown, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonTypeName(found)} into Go struct field ObjectMeta.metadata.${field} of type ${goType}`;
}

/**
 * The encoding/json error a Go server gives for an ObjectMeta field of the wrong JSON type
 * (`json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string`),
 * or undefined when every field has its type. `null` is accepted for every field, as in Go.
 */
export function objectMetaTypeError(metadata: Record<string, unknown>): string | undefined {
  for (const [field, type] of metaFieldEntries) {
    const value = metadata[field];
    if (value === undefined || value === null) continue;
    switch (type) {
      case 'string':
        if (typeof value !== 'string') return unmarshalError(value, field, 'string');
        break;
      case 'int64':
        if (typeof value !== 'number') return unmarshalError(value, field, 'int64');
        if (!Number.isInteger(value)) return unmarshalError(value, field, 'int64').replace('unmarshal number', `unmarshal number ${value}`);
        break;
      case '[]string':
        if (!Array.isArray(value)) return unmarshalError(value, field, '[]string');
        for (const item of value as unknown[]) if (typeof item !== 'string' && item !== null) return unmarshalError(item, field, 'string');
        break;
      case 'map[string]string':
        if (typeof value !== 'object' || Array.isArray(value)) return unmarshalError(value, field, 'map[string]string');
        for (const item of Object.values(value)) if (typeof item !== 'string' && item !== null) return unmarshalError(item, field, 'string');
        break;
      case 'array': {
        const item = itemTypes[field as keyof typeof itemTypes];
        if (!Array.isArray(value)) return unmarshalError(value, field, `[]v1.${item.goType}`);
        for (const entry of value as unknown[]) {
          const error = itemTypeError(entry, field, item);
          if (error) return error;
        }
        break;
      }
    }
  }
  return undefined;
}
