import {
  groupVersionString,
  parseGroupVersion,
  type GroupVersion,
  type GroupVersionKind,
} from './group-version.js';
import type { KubeObject } from './meta-types.js';
import type { ConversionDefinition, KindDefinition } from './scheme-types.js';
import type { FieldError } from './status-error.js';
import type { JsonSchema } from './json-schema.js';
import { applySchemaDefaults } from './schema-defaults.js';
import { hasTypeMismatch, validateAgainstSchema } from './schema-validation.js';
import { findUnknownSchemaFields } from './schema-unknown-fields.js';
import { createSchemeCodec, type SchemeCodec, type SchemeCodecOptions } from './scheme-codec.js';

interface KindEntry {
  group: string;
  kind: string;
  /** Versions in registration order. */
  versions: Map<string, KindDefinition>;
  conversions: Map<string, ConversionDefinition>;
  hub?: string;
}

/** The error of a conversion from or to a version the kind is not registered at. */
function unregisteredVersion(gvk: GroupVersionKind, version: string): Error {
  return new Error(`no kind "${gvk.kind}" is registered for version "${groupVersionString({ group: gvk.group, version })}" in scheme`);
}

/**
 * The registry of kinds, their versions, schemas and conversions (runtime.Scheme). Each kind has a hub
 * (internal) version; every other version converts to and from the hub, so any version converts to any other.
 */
export class Scheme {
  /** Kinds by group, then kind (two lookups: no key string made per lookup, as a write makes several). */
  private readonly kinds = new Map<string, Map<string, KindEntry>>();
  /** Every kind's entry, in the order the kinds were first registered. */
  private readonly registered = new Set<KindEntry>();
  /** objectKind results of registered kinds, by apiVersion, then kind. */
  private readonly parsedKinds = new Map<string, Map<string, GroupVersionKind>>();

  private entry(group: string, kind: string, create: true): KindEntry;
  private entry(group: string, kind: string, create?: false): KindEntry | undefined;
  private entry(group: string, kind: string, create = false): KindEntry | undefined {
    let entry = this.kinds.get(group)?.get(kind);
    if (entry === undefined && create) {
      entry = { group, kind, versions: new Map(), conversions: new Map() };
      let ofGroup = this.kinds.get(group);
      if (ofGroup === undefined) this.kinds.set(group, (ofGroup = new Map()));
      ofGroup.set(kind, entry);
      this.registered.add(entry);
    }
    return entry;
  }

  private requireEntry(group: string, kind: string): KindEntry {
    const entry = this.entry(group, kind);
    if (entry === undefined || entry.versions.size === 0) {
      throw new Error(`no kind "${kind}" is registered for group "${group}" in scheme`);
    }
    return entry;
  }

  /** Registers a kind at one version. The first version registered for a kind is its default hub. */
  addKind(definition: KindDefinition): this {
    const entry = this.entry(definition.group, definition.kind, true);
    if (entry.versions.has(definition.version)) {
      throw new Error(
        `kind ${groupVersionString(definition)}, Kind=${definition.kind} is already registered in scheme`,
      );
    }
    entry.versions.set(definition.version, definition);
    return this;
  }

  /** Forgets a kind at every version, with its conversions and hub (e.g. a CustomResourceDefinition being re-installed). */
  removeKind(group: string, kind: string): this {
    const entry = this.entry(group, kind);
    if (entry) this.registered.delete(entry);
    this.kinds.get(group)?.delete(kind);
    for (const ofVersion of this.parsedKinds.values()) if (ofVersion.get(kind)?.group === group) ofVersion.delete(kind);
    return this;
  }

  /** Registers the conversion between one non-hub version of a kind and its hub. */
  addConversion(definition: ConversionDefinition): this {
    this.entry(definition.group, definition.kind, true).conversions.set(definition.version, definition);
    return this;
  }

  /** Makes `version` the hub of the kind (default: the first version added). */
  setHubVersion(group: string, kind: string, version: string): this {
    this.entry(group, kind, true).hub = version;
    return this;
  }

  /** The hub version of a kind; throws when the kind is not registered. */
  hubVersion(group: string, kind: string): string {
    const entry = this.requireEntry(group, kind);
    if (entry.hub !== undefined && !entry.versions.has(entry.hub)) {
      throw new Error(
        `hub version "${entry.hub}" of kind ${kind} in group "${group}" is not registered in scheme`,
      );
    }
    return entry.hub ?? (entry.versions.keys().next().value as string);
  }

  /** The definition of a kind at a version, if registered. */
  kindFor(gvk: GroupVersionKind): KindDefinition | undefined {
    return this.entry(gvk.group, gvk.kind)?.versions.get(gvk.version);
  }

  /** True when the group/version/kind is registered. */
  recognizes(gvk: GroupVersionKind): boolean {
    return this.kindFor(gvk) !== undefined;
  }

  /** The registered versions of a kind, in registration order (empty when unknown). */
  versionsOf(group: string, kind: string): string[] {
    return [...(this.entry(group, kind)?.versions.keys() ?? [])];
  }

  /** Every registered group/version/kind. */
  allKinds(): GroupVersionKind[] {
    const out: GroupVersionKind[] = [];
    for (const entry of this.registered) {
      for (const version of entry.versions.keys())
        out.push({ group: entry.group, version, kind: entry.kind });
    }
    return out;
  }

  /** The group/version/kind of an object from its apiVersion and kind (a shared, frozen result); throws when either is missing. */
  objectKind(object: KubeObject): GroupVersionKind {
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== 'string' || apiVersion === '') {
      throw new Error("Object 'apiVersion' is missing");
    }
    if (typeof kind !== 'string' || kind === '') throw new Error("Object 'Kind' is missing");
    const known = this.parsedKinds.get(apiVersion)?.get(kind);
    if (known) return known;
    const gvk = Object.freeze({ ...parseGroupVersion(apiVersion), kind });
    // Only registered kinds are remembered, so arbitrary input cannot grow the map.
    if (this.kindFor(gvk) !== undefined) {
      let ofVersion = this.parsedKinds.get(apiVersion);
      if (ofVersion === undefined) this.parsedKinds.set(apiVersion, (ofVersion = new Map()));
      ofVersion.set(kind, gvk);
    }
    return gvk;
  }

  private definitionOf(object: KubeObject): KindDefinition {
    const gvk = this.objectKind(object);
    const definition = this.kindFor(gvk);
    if (definition === undefined) {
      throw new Error(
        `no kind "${gvk.kind}" is registered for version "${groupVersionString(gvk)}" in scheme`,
      );
    }
    return definition;
  }

  /**
   * Converts an object of any registered version to `target` through the hub and sets apiVersion/kind.
   * The input is not modified; an object already at `target` is returned as is.
   */
  convert(object: KubeObject, target: GroupVersion): KubeObject {
    return this.convertObject(object, target.version, target.group, false);
  }

  /** Converts an object to the hub version of its kind (see {@link convert}). */
  toHub(object: KubeObject): KubeObject {
    const gvk = this.objectKind(object);
    return this.convertObject(object, this.hubVersion(gvk.group, gvk.kind), gvk.group, false);
  }

  /** Converts a hub object to `version` (see {@link convert}). */
  fromHub(object: KubeObject, version: string): KubeObject {
    return this.convertObject(object, version, this.objectKind(object).group, false);
  }

  /**
   * The conversion itself. With `owned`, the caller gives up `object` (e.g. freshly parsed), so converters
   * receive it without a defensive copy.
   * @internal
   */
  convertObject(object: KubeObject, targetVersion: string, targetGroup: string, owned: boolean): KubeObject {
    const gvk = this.objectKind(object);
    const entry = this.requireEntry(gvk.group, gvk.kind);
    if (targetGroup !== gvk.group) {
      throw new Error(`${gvk.kind} in group "${gvk.group}" cannot be converted to group "${targetGroup}"`);
    }
    if (!entry.versions.has(gvk.version)) throw unregisteredVersion(gvk, gvk.version);
    // Already at the target (every GET, LIST item and watch event served at the stored version).
    if (gvk.version === targetVersion) return object;
    if (!entry.versions.has(targetVersion)) throw unregisteredVersion(gvk, targetVersion);
    const hub = this.hubVersion(gvk.group, gvk.kind);
    let current = owned ? object : structuredClone(object);
    if (gvk.version !== hub) {
      current = withTypeMeta(
        this.conversionFor(entry, gvk.version).toHub(current),
        entry.group,
        hub,
        entry.kind,
      );
    }
    if (targetVersion !== hub) current = this.conversionFor(entry, targetVersion).fromHub(current);
    return withTypeMeta(current, entry.group, targetVersion, entry.kind);
  }

  private conversionFor(entry: KindEntry, version: string): ConversionDefinition {
    const conversion = entry.conversions.get(version);
    if (conversion === undefined) {
      throw new Error(
        `no conversion registered between ${groupVersionString({ group: entry.group, version })} and the hub version of ${entry.kind}`,
      );
    }
    return conversion;
  }

  /**
   * Fills schema `default`s (only where the parent exists), then runs the kind's defaulter, unless a value
   * has a type its schema does not allow (validation then reports it). In place; returns the object.
   */
  applyDefaults(object: KubeObject): KubeObject {
    const definition = this.definitionOf(object);
    const schema = definition.schema as JsonSchema;
    applySchemaDefaults(object, schema);
    if (definition.defaulter && !hasTypeMismatch(object, schema)) definition.defaulter(object);
    return object;
  }

  /**
   * Schema validation then the kind's validator; the validator is left out when a value has a type its
   * schema does not allow (the schema's errors say so). ObjectMeta rules are left to `validateObjectMeta`.
   */
  validate(object: KubeObject): FieldError[] {
    const definition = this.definitionOf(object);
    const schema = definition.schema as JsonSchema;
    const errors = validateAgainstSchema(object, schema);
    if (definition.validator && (errors.length === 0 || !hasTypeMismatch(object, schema))) errors.push(...definition.validator(object));
    return errors;
  }

  /** Paths of fields the schema does not declare (`spec.foo`, `metadata.bogus`, `spec.items[0].x`). */
  findUnknownFields(object: KubeObject): string[] {
    return findUnknownSchemaFields(object, this.definitionOf(object).schema as JsonSchema, { isRoot: true });
  }

  /** Removes the fields {@link findUnknownFields} reports, in place; returns their paths. */
  prune(object: KubeObject): string[] {
    return findUnknownSchemaFields(object, this.definitionOf(object).schema as JsonSchema, {
      isRoot: true,
      remove: true,
    });
  }

  /** A storage codec for one kind: encodes hub objects at `encodingVersion`, decodes any decodable version to the hub. */
  codecFor(options: SchemeCodecOptions): SchemeCodec {
    return createSchemeCodec(this, options);
  }

  /** The kind's schema as plain JSON with `x-kubernetes-group-version-kind`, for /openapi. */
  openAPISchema(gvk: GroupVersionKind): Record<string, unknown> {
    const definition = this.kindFor(gvk);
    if (definition === undefined) {
      throw new Error(
        `no kind "${gvk.kind}" is registered for version "${groupVersionString(gvk)}" in scheme`,
      );
    }
    const schema = JSON.parse(JSON.stringify(definition.schema)) as Record<string, unknown>;
    schema['x-kubernetes-group-version-kind'] = [{ group: gvk.group, version: gvk.version, kind: gvk.kind }];
    return schema;
  }
}

/** Sets apiVersion and kind (first in key order for new objects). */
export function withTypeMeta(object: KubeObject, group: string, version: string, kind: string): KubeObject {
  const apiVersion = groupVersionString({ group, version });
  if (object.apiVersion === apiVersion && object.kind === kind) return object;
  if ('apiVersion' in object && 'kind' in object) {
    object.apiVersion = apiVersion;
    object.kind = kind;
    return object;
  }
  const out: KubeObject = { apiVersion, kind, ...object };
  out.apiVersion = apiVersion;
  out.kind = kind;
  return out;
}
