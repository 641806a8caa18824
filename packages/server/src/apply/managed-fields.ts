import { compareStrings } from './field-path.js';
import { FieldSet } from './field-set.js';
import { fromFieldsV1, toFieldsV1, type FieldsV1 } from './fields-v1.js';

/** The operation of a managedFields entry. */
export type ManagedOperation = 'Apply' | 'Update';

/** One decoded managedFields entry: who manages which fields. */
export interface ManagerEntry {
  manager: string;
  operation: ManagedOperation;
  /** The group/version the fields are in (entries of both operations record it). */
  apiVersion: string;
  /** RFC 3339 (seconds, UTC) of the last change of this entry's fields. */
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** Decoded managedFields keyed by manager identity (see {@link managerIdentity}). */
export type ManagedFields = Map<string, ManagerEntry>;

/** The encoded form of an entry (metav1.ManagedFieldsEntry), keys in upstream's order. */
export interface ManagedFieldsEntryJson {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Why managedFields could not be decoded. */
export class ManagedFieldsError extends Error {}

/**
 * The identity of an entry: its JSON without fieldsType, fieldsV1 and time; Apply entries also drop
 * apiVersion (one Apply entry per manager and subresource).
 */
export function managerIdentity(entry: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const identity: Record<string, string> = {};
  if (entry.manager) identity['manager'] = entry.manager;
  identity['operation'] = entry.operation;
  if (entry.operation === 'Update' && entry.apiVersion) identity['apiVersion'] = entry.apiVersion;
  if (entry.subresource) identity['subresource'] = entry.subresource;
  return JSON.stringify(identity);
}

/** Decodes managedFields; throws {@link ManagedFieldsError} on anything upstream would not decode. */
export function decodeManagedFields(raw: unknown): ManagedFields {
  const result: ManagedFields = new Map();
  if (raw === undefined || raw === null) return result;
  if (!Array.isArray(raw)) throw new ManagedFieldsError('managedFields must be a list');
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) throw new ManagedFieldsError('managedFields entries must be objects');
    const entry = item as ManagedFieldsEntryJson;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update')
      throw new ManagedFieldsError(`operation must be Apply or Update, got ${String(entry.operation)}`);
    if (!entry.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (entry.fieldsType !== 'FieldsV1')
      throw new ManagedFieldsError(`fieldsType must be FieldsV1, got ${String(entry.fieldsType)}`);
    let fields: FieldSet;
    try {
      fields = fromFieldsV1(entry.fieldsV1 ?? {});
    } catch (error) {
      throw new ManagedFieldsError(error instanceof Error ? error.message : String(error));
    }
    const decoded: ManagerEntry = {
      manager: typeof entry.manager === 'string' ? entry.manager : '',
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      fields,
    };
    if (typeof entry.time === 'string') decoded.time = entry.time;
    if (typeof entry.subresource === 'string' && entry.subresource) decoded.subresource = entry.subresource;
    const identity = managerIdentity(decoded);
    const previous = result.get(identity);
    if (previous) decoded.fields = previous.fields.union(decoded.fields);
    result.set(identity, decoded);
  }
  return result;
}

/** Decodes managedFields, or nothing when they cannot be decoded. */
export function decodeManagedFieldsOrEmpty(raw: unknown): ManagedFields {
  try {
    return decodeManagedFields(raw);
  } catch {
    return new Map();
  }
}

/** `[]` or `[{}]` in a request: drop all managedFields. */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  const [only] = raw as unknown[];
  return raw.length === 1 && typeof only === 'object' && only !== null && Object.keys(only).length === 0;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
}

/** Upstream's entry order: operation, time, manager, apiVersion, subresource. */
export function compareEntries(left: ManagerEntry, right: ManagerEntry): number {
  return (
    compareStrings(left.operation, right.operation) ||
    seconds(left.time) - seconds(right.time) ||
    compareStrings(left.manager, right.manager) ||
    compareStrings(left.apiVersion, right.apiVersion) ||
    compareStrings(left.subresource ?? '', right.subresource ?? '')
  );
}

/** Encodes managedFields (entries sorted, empty sets dropped). */
export function encodeManagedFields(managed: ManagedFields): ManagedFieldsEntryJson[] {
  return [...managed.values()]
    .filter((entry) => !entry.fields.isEmpty())
    .sort(compareEntries)
    .map((entry) => {
      const encoded: ManagedFieldsEntryJson = {};
      if (entry.manager) encoded.manager = entry.manager;
      encoded.operation = entry.operation;
      encoded.apiVersion = entry.apiVersion;
      if (entry.time) encoded.time = entry.time;
      encoded.fieldsType = 'FieldsV1';
      encoded.fieldsV1 = toFieldsV1(entry.fields);
      if (entry.subresource) encoded.subresource = entry.subresource;
      return encoded;
    });
}

/** The manager the oldest Update entries are merged into past the cap. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Caps Update entries at `max` (upstream 10): the oldest are merged, per apiVersion, into an Update
 * entry of manager `ancient-changes` that takes the time of the newest entry merged into it.
 * Apply entries are not capped. Works in place.
 */
export function capUpdateManagers(managed: ManagedFields, max = 10): void {
  const updaters = [...managed.entries()].filter(([, entry]) => entry.operation === 'Update');
  let count = updaters.length;
  if (count <= max) return;
  updaters.sort(([, left], [, right]) => seconds(left.time) - seconds(right.time));
  const bucketsMade = new Set<string>();
  for (const [identity, entry] of updaters) {
    if (count <= max) break;
    const bucket: ManagerEntry = {
      manager: ANCIENT_CHANGES_MANAGER,
      operation: 'Update',
      apiVersion: entry.apiVersion,
      fields: entry.fields,
    };
    const bucketIdentity = managerIdentity(bucket);
    if (bucketIdentity === identity) continue;
    const previous = managed.get(bucketIdentity);
    if (previous) bucket.fields = previous.fields.union(entry.fields);
    if (entry.time) bucket.time = entry.time;
    managed.delete(identity);
    managed.set(bucketIdentity, bucket);
    if (previous || bucketsMade.has(entry.apiVersion)) count -= 1;
    bucketsMade.add(entry.apiVersion);
  }
}
