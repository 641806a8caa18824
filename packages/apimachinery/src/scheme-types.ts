import type { TSchema } from '@sinclair/typebox';
import type { GroupResource, GroupVersion, GroupVersionKind } from './group-version.js';
import type { KubeObject } from './meta-types.js';
import type { FieldError } from './status-error.js';

/**
 * One kind at one group-version. The schema (a TypeBox schema, i.e. JSON Schema) is the single source of
 * the TypeScript type (`Static<typeof schema>`), validation, defaulting, unknown-field detection and
 * the OpenAPI document.
 */
export interface KindDefinition {
  group: string;
  version: string;
  kind: string;
  /** `<Kind>List` by default. */
  listKind?: string;
  /** JSON Schema of the whole object (apiVersion, kind, metadata, spec, status...). */
  schema: TSchema;
  /**
   * Fills defaults in place (after the schema's own `default`s are applied). Called only with an object
   * whose every value has a type its schema allows (as a Go defaulter gets a decoded struct).
   */
  defaulter?: (object: KubeObject) => void;
  /**
   * Extra validation beyond the schema; returns field errors with paths like `spec.replicas`. Called only
   * with a well-typed object (a type error is reported by the schema's validation instead).
   */
  validator?: (object: KubeObject) => FieldError[];
}

/**
 * Conversion of one kind between one version and the kind's hub (internal) version. The hub is the
 * in-memory form used by storage, the watch cache and strategies. A kind served in a single version has
 * that version as hub and needs no conversion.
 */
export interface ConversionDefinition {
  group: string;
  kind: string;
  /** The non-hub version this converts. */
  version: string;
  /** Object at `version` -> object at the hub version (apiVersion rewritten by the scheme). */
  toHub: (object: KubeObject) => KubeObject;
  /** Object at the hub version -> object at `version`. */
  fromHub: (object: KubeObject) => KubeObject;
}

/** What a persisted resource encodes and decodes (feeds the storage codec and the StorageVersion API). */
export interface StorageVersionInfo {
  groupResource: GroupResource;
  kind: string;
  /** The version objects are written in, e.g. `autoscaling/v1`. */
  encodingVersion: GroupVersion;
  /** Versions whose stored bytes this server can read. */
  decodableVersions: GroupVersion[];
}

/** Result of strict decoding: unknown fields found (dotted paths), for fieldValidation=Strict/Warn. */
export interface UnknownFieldReport {
  unknownFields: string[];
  duplicateFields: string[];
}

export type { GroupVersionKind, TSchema };
