import { sameJson, type KubeObject } from '@kapi/apimachinery';
import { applyConflictError, type ConflictSets } from './apply-conflicts.js';
import { fieldElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  decodeManagedFieldsOrEmpty,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentity,
  type ManagedFields,
  type ManagedFieldsEntryJson,
  type ManagerEntry,
} from './managed-fields.js';
import { createdFieldsV1, metadataNeverOwnedFields } from './created-fields.js';
import { formatTime } from '../registry/object-meta.js';
import { allowedConflictsFromLastApplied, LAST_APPLIED_MANAGER, syncLastApplied } from './last-applied.js';
import type { SchemaNode } from './schema-type.js';
import { mergeApplied, removeItems } from './typed-merge.js';
import { compare, toFieldSet } from './typed-value.js';

/** The manager that owns an object's existing fields when it is first applied to. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

/** Who writes: the manager name and the subresource ('' or 'status'). */
export interface FieldManagerRequest {
  manager: string;
  subresource: string;
}

/** Options of a {@link FieldManager}. */
export interface FieldManagerOptions {
  /** The schema of the kind at an apiVersion (`group/version`). */
  schemaFor(apiVersion: string): SchemaNode | undefined;
  /** Whether the resource has a status subresource (then the main resource never owns `status`). */
  statusSubresource: boolean;
  now?: () => Date;
  /** How many Update entries are kept before the oldest merge into `ancient-changes` (10). */
  maxUpdateManagers?: number;
  /**
   * Converts a copy of an object to another served apiVersion, so that each manager's fields are
   * compared in the version they were recorded in. Without it everything is compared in the request
   * version.
   */
  convert?: (object: KubeObject, apiVersion: string) => KubeObject;
}

/** An apply: the manager, `force`, and whether it creates the object. */
export type ApplyRequest = FieldManagerRequest & { force: boolean; created: boolean };

/** Conflicts of an apply before they become the 409 (so kubectl's last-applied rule can look at them). */
class ApplyConflicts extends Error {
  constructor(readonly conflicts: ConflictSets) {
    super('apply conflicts');
  }
}

/** What a write changes, as seen in one apiVersion. */
interface Diff {
  /** Added ∪ Modified (never-owned fields left out). */
  changed: FieldSet;
  removed: FieldSet;
}

/** The diff of a write in any apiVersion (computed once per version). */
type Differ = (apiVersion: string) => Diff;

/** Paths no manager owns (stripmeta): apiVersion, kind, metadata itself and its identity fields. */
const neverOwned = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...metadataNeverOwnedFields.map((name) => [fieldElement('metadata'), fieldElement(name)]),
);

/**
 * Tracks field ownership in `metadata.managedFields` (k8s.io/apimachinery managedfields): records
 * Updates (create, update, non-apply patch) and performs server-side apply with conflict detection.
 * Objects are in the request version; every entry is compared in that version.
 */
export class FieldManager {
  private readonly now: () => Date;

  constructor(private readonly options: FieldManagerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The part of an object a write at `subresource` can own (status is reset by the strategies). */
  private view(object: KubeObject | undefined, subresource: string): Record<string, unknown> {
    if (!object) return {};
    if (subresource === 'status') return object['status'] === undefined ? {} : { status: object['status'] };
    const stripStatus = this.options.statusSubresource && object['status'] !== undefined;
    // Views are only read: copy a level only when something has to be left out.
    if (object.metadata.managedFields === undefined && !stripStatus) return object;
    const view: Record<string, unknown> = { ...object };
    if (object.metadata.managedFields !== undefined) {
      const metadata: Record<string, unknown> = { ...object.metadata };
      delete metadata['managedFields'];
      view['metadata'] = metadata;
    }
    if (stripStatus) delete view['status'];
    return view;
  }

  private schema(object: KubeObject): SchemaNode | undefined {
    return this.options.schemaFor(String(object.apiVersion ?? ''));
  }

  /**
   * The diff of `live` → `next` per apiVersion: in the request version directly, in others after
   * converting both (falling back to the request version when conversion fails).
   */
  private differ(live: KubeObject | undefined, next: KubeObject, subresource: string): Differ {
    const requestVersion = String(next.apiVersion ?? '');
    const cache = new Map<string, Diff>();
    const diffIn = (apiVersion: string): Diff => {
      const convert = this.options.convert;
      const version = convert && apiVersion ? apiVersion : requestVersion;
      let diff = cache.get(version);
      if (diff) return diff;
      let left = live;
      let right = next;
      if (version !== requestVersion && convert) {
        try {
          left = live && convert(live, version);
          right = convert(next, version);
        } catch {
          return diffIn(requestVersion);
        }
      }
      const comparison = compare(this.view(left, subresource), this.view(right, subresource), this.options.schemaFor(version));
      diff = {
        changed: comparison.added.union(comparison.modified).difference(neverOwned),
        removed: comparison.removed.difference(neverOwned),
      };
      cache.set(version, diff);
      return diff;
    };
    return diffIn;
  }

  /** Removes from every entry what changed (in its version), and records the change for the writer. */
  private recordUpdate(managed: ManagedFields, diffs: Differ, writer: Omit<ManagerEntry, 'fields' | 'time'>): void {
    for (const [identity, entry] of managed) {
      const { changed, removed } = diffs(entry.apiVersion);
      const fields = entry.fields.difference(changed).difference(removed);
      if (fields.isEmpty()) managed.delete(identity);
      else entry.fields = fields;
    }
    const { changed } = diffs(writer.apiVersion);
    if (changed.isEmpty()) return;
    const identity = managerIdentity(writer);
    const previous = managed.get(identity);
    managed.set(identity, {
      ...writer,
      fields: previous ? previous.fields.union(changed) : changed,
      time: formatTime(this.now()),
    });
  }

  private finish(managed: ManagedFields): ReturnType<typeof encodeManagedFields> {
    capUpdateManagers(managed, this.options.maxUpdateManagers ?? 10);
    return encodeManagedFields(managed);
  }

  /**
   * Removes from `merged` what the applier applied before (`previous`) and no longer applies, unless
   * some manager owns it. Works in the version of the previous apply (converting when it differs);
   * ownership recorded in other versions than that one is not consulted.
   */
  private prune(
    merged: KubeObject,
    config: KubeObject,
    previous: ManagerEntry,
    managed: ManagedFields,
    subresource: string,
  ): KubeObject {
    const requestVersion = String(config.apiVersion ?? '');
    const version = previous.apiVersion;
    const convert = this.options.convert;
    const converted = version !== requestVersion && convert !== undefined;
    let target = merged;
    let applied = managed.get(managerIdentity(previous))?.fields ?? FieldSet.empty();
    if (converted) {
      try {
        target = convert(merged, version);
        applied = toFieldSet(this.view(convert(config, version), subresource), this.options.schemaFor(version)).difference(neverOwned);
      } catch {
        return merged;
      }
    } else if (version !== requestVersion) return merged;
    let owned = applied;
    const self = managed.get(managerIdentity(previous));
    for (const entry of managed.values()) {
      if (entry !== self && (!converted || entry.apiVersion === version)) owned = owned.union(entry.fields);
    }
    const pruned = removeItems(target, previous.fields.difference(owned), owned, this.options.schemaFor(version)) as KubeObject;
    return converted ? convert(pruned, requestVersion) : pruned;
  }

  /**
   * Records a create (`live` undefined), update or non-apply patch in `next.metadata.managedFields`.
   * managedFields sent in `next` replace the live ones when decodable, `[]` resets them (the write is
   * then untracked), and subresource writes ignore them. Never fails: on error the object is left
   * without managedFields, as upstream's UpdateNoErrors.
   */
  update(live: KubeObject | undefined, next: KubeObject, request: FieldManagerRequest): void {
    // A write of the object as it is (a storage migration's no-op PUT or PATCH) changes no field and no
    // manager. Compared as JSON, as it is stored: ~20 µs less per 2 KB object than util.isDeepStrictEqual.
    if (live !== undefined && request.subresource === '' && sameJson(live, next)) return;
    const requested = next.metadata.managedFields;
    let managed: ManagedFields;
    if (request.subresource !== '' || requested === undefined || requested === null) {
      managed = decodeManagedFieldsOrEmpty(live?.metadata.managedFields);
    } else if (isResetManagedFields(requested)) {
      managed = new Map();
    } else {
      managed = decodeManagedFieldsOrEmpty(requested);
      if (managed.size === 0) managed = decodeManagedFieldsOrEmpty(live?.metadata.managedFields);
    }
    // An existing object without managedFields stays untracked until it is applied to.
    if (managed.size === 0 && live?.metadata.uid) {
      delete next.metadata.managedFields;
      return;
    }
    try {
      if (live === undefined && managed.size === 0) return this.recordCreate(next, request);
      this.recordUpdate(managed, this.differ(live, next, request.subresource), {
        manager: request.manager,
        operation: 'Update',
        apiVersion: String(next.apiVersion ?? ''),
        ...(request.subresource ? { subresource: request.subresource } : {}),
      });
      const encoded = this.finish(managed);
      // Assigning keeps the key's place, so an unchanged object encodes to the same bytes.
      if (encoded.length > 0) next.metadata.managedFields = encoded;
      else delete next.metadata.managedFields;
    } catch {
      // Field sets could not be computed: the object is written without managedFields.
      delete next.metadata.managedFields;
    }
  }

  /** A create without managedFields: one Update entry owning every field it sets (the common create). */
  private recordCreate(next: KubeObject, request: FieldManagerRequest): void {
    const apiVersion = String(next.apiVersion ?? '');
    const fieldsV1 = createdFieldsV1(this.view(next, request.subresource), this.options.schemaFor(apiVersion));
    if (fieldsV1 === undefined) {
      delete next.metadata.managedFields;
      return;
    }
    const entry: ManagedFieldsEntryJson = {};
    if (request.manager) entry.manager = request.manager;
    entry.operation = 'Update';
    entry.apiVersion = apiVersion;
    entry.time = formatTime(this.now());
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = fieldsV1;
    if (request.subresource) entry.subresource = request.subresource;
    next.metadata.managedFields = [entry];
  }

  /**
   * Applies `config` to `live` (or to an empty object when creating): merges it per the schema, prunes
   * fields the manager applied before and no longer sets (unless others own them), and fails with a
   * 409 conflict when it changes fields other managers own, unless `force`. Returns the new object with
   * its managedFields, or `live` itself when nothing changed. Throws {@link TypedValueError} for
   * configs that do not fit the schema. For manager `kubectl`, conflicts on fields whose live value
   * still matches the last-applied-configuration annotation are forced, and that annotation, when
   * present, is rewritten to the applied configuration.
   */
  apply(live: KubeObject, config: KubeObject, request: ApplyRequest): KubeObject {
    if (request.manager !== LAST_APPLIED_MANAGER) return this.applyOnce(live, config, request);
    let result: KubeObject;
    try {
      result = this.applyOnce(live, config, request);
    } catch (error) {
      if (!(error instanceof ApplyConflicts)) throw error;
      // kubectl --server-side may take fields whose live value is still its last client-side apply.
      const view = (object: KubeObject) => this.view(object, request.subresource);
      const allowed = allowedConflictsFromLastApplied(live, this.schema(config), view);
      if (!allowed) throw applyConflictError(error.conflicts);
      const remaining: ConflictSets = new Map();
      for (const [identity, fields] of error.conflicts) {
        const left = fields.difference(allowed);
        if (!left.isEmpty()) remaining.set(identity, left);
      }
      if (remaining.size > 0) throw applyConflictError(remaining);
      result = this.applyOnce(live, config, { ...request, force: true });
    }
    return syncLastApplied(result, config);
  }

  private applyOnce(live: KubeObject, config: KubeObject, request: ApplyRequest): KubeObject {
    const schema = this.schema(config);
    const apiVersion = String(config.apiVersion ?? '');
    const subresource = request.subresource;
    const liveView = this.view(live, subresource);
    const managed = decodeManagedFieldsOrEmpty(live.metadata.managedFields);
    if (managed.size === 0 && !request.created) {
      const empty: KubeObject = { apiVersion, kind: live.kind ?? '', metadata: {} };
      this.recordUpdate(managed, this.differ(empty, live, subresource), {
        manager: BEFORE_FIRST_APPLY_MANAGER,
        operation: 'Update',
        apiVersion,
        ...(subresource ? { subresource } : {}),
      });
    }
    const applied = toFieldSet(this.view(config, subresource), schema).difference(neverOwned);
    const applier: ManagerEntry = {
      manager: request.manager,
      operation: 'Apply',
      apiVersion,
      ...(subresource ? { subresource } : {}),
      fields: applied,
    };
    const identity = managerIdentity(applier);
    const previous = managed.get(identity);
    if (previous?.time) applier.time = previous.time;
    managed.set(identity, applier);
    let merged = mergeApplied(live, config, schema) as KubeObject;
    if (previous && !previous.fields.isEmpty()) merged = this.prune(merged, config, previous, managed, subresource);
    const mergedView = this.view(merged, subresource);
    const diffs = this.differ(live, merged, subresource);
    const conflicts: ConflictSets = new Map();
    for (const [other, entry] of managed) {
      if (other === identity) continue;
      const conflict = entry.fields.intersection(diffs(entry.apiVersion).changed);
      if (!conflict.isEmpty()) conflicts.set(other, conflict);
    }
    if (conflicts.size > 0 && !request.force) {
      if (request.manager === LAST_APPLIED_MANAGER) throw new ApplyConflicts(conflicts);
      throw applyConflictError(conflicts);
    }
    for (const [other, entry] of managed) {
      if (other === identity) continue;
      const taken = conflicts.get(other) ?? FieldSet.empty();
      entry.fields = entry.fields.difference(taken).difference(diffs(entry.apiVersion).removed);
      if (entry.fields.isEmpty()) managed.delete(other);
    }
    const { changed, removed } = diffs(apiVersion);
    const objectChanged = !changed.isEmpty() || !removed.isEmpty() || !sameJson(liveView, mergedView);
    if (objectChanged || !previous) applier.time = formatTime(this.now());
    const encoded = this.finish(managed);
    if (!objectChanged) {
      if (sameJson(encoded, live.metadata.managedFields ?? [])) return live;
      return { ...live, metadata: { ...live.metadata, managedFields: encoded } };
    }
    merged.metadata = { ...merged.metadata };
    if (encoded.length > 0) merged.metadata.managedFields = encoded;
    else delete merged.metadata.managedFields;
    return merged;
  }

  /** Whether `raw` would decode as managedFields (for validating what a client sends). */
  static decodable(raw: unknown): boolean {
    try {
      decodeManagedFields(raw);
      return true;
    } catch {
      return false;
    }
  }
}
