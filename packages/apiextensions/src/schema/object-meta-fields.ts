import { isRecord } from './schema-node.js';

/** The fields of metav1.ObjectMeta, and of the lists of objects in it: what decoding into it keeps. */
const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const metadataListItemFields: Record<string, Set<string>> = {
  ownerReferences: new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']),
  managedFields: new Set([
    'manager',
    'operation',
    'apiVersion',
    'time',
    'fieldsType',
    'fieldsV1',
    'subresource',
  ]),
};

/** Drops (or lists) what metav1.ObjectMeta does not hold, as upstream's objectmeta coercion of a custom resource. */
export function pruneObjectMeta(
  metadata: Record<string, unknown>,
  path: string,
  pruned: string[],
  remove: boolean,
): void {
  for (const key of Object.keys(metadata)) {
    if (!objectMetaFields.has(key)) {
      if (remove) delete metadata[key];
      pruned.push(`${path}.${key}`);
      continue;
    }
    const itemFields = metadataListItemFields[key];
    const items = metadata[key];
    if (!itemFields || !Array.isArray(items)) continue;
    items.forEach((item, index) => {
      if (!isRecord(item)) return;
      for (const field of Object.keys(item)) {
        if (itemFields.has(field)) continue;
        if (remove) delete item[field];
        pruned.push(`${path}.${key}[${index}].${field}`);
      }
    });
  }
}

/** True when `metadata` holds nothing {@link pruneObjectMeta} would drop. */
export function hasOnlyObjectMetaFields(metadata: Record<string, unknown>): boolean {
  for (const key in metadata) {
    if (!objectMetaFields.has(key)) return false;
    const itemFields = metadataListItemFields[key];
    const items = metadata[key];
    if (!itemFields || !Array.isArray(items)) continue;
    for (const item of items) {
      if (!isRecord(item)) continue;
      for (const field in item) if (!itemFields.has(field)) return false;
    }
  }
  return true;
}
