import type { FieldError, GroupVersion, GroupVersionKind, KubeObject } from '@kapi/apimachinery';
import type { Codec } from '@kapi/storage';

/** Arguments of {@link SchemeLike.codecFor}. */
export interface CodecForOptions {
  group: string;
  kind: string;
  encodingVersion: string | (() => string);
  decodableVersions?: string[];
  /** See @kapi/apimachinery's `SchemeCodecOptions.beforeConversion`. */
  beforeConversion?: (object: KubeObject) => void;
}

/**
 * The part of @kapi/apimachinery's `Scheme` the server uses. Declared structurally so any Scheme (and
 * test doubles) fits.
 */
export interface SchemeLike {
  /** Any registered version to any other (sets apiVersion/kind). */
  convert(object: KubeObject, target: GroupVersion): KubeObject;
  /** Any registered version to the kind's hub version. */
  toHub(object: KubeObject): KubeObject;
  /** Fills defaults in place (the result, when returned, is used). */
  applyDefaults(object: KubeObject): KubeObject | void;
  validate(object: KubeObject): FieldError[];
  /**
   * Validation of an update against the stored object in the same version (CRD transition rules with
   * `oldSelf`, ratcheting); when absent, updates use {@link validate}.
   */
  validateUpdate?(object: KubeObject, old: KubeObject): FieldError[];
  /** Dotted paths of fields the schema does not know. */
  findUnknownFields(object: KubeObject): string[];
  /** Drops unknown fields, in place. */
  prune(object: KubeObject): unknown;
  codecFor(options: CodecForOptions): Codec;
  /** The kind's JSON schema at a version (for strategic-merge metadata). */
  kindFor?(gvk: GroupVersionKind): { schema: unknown } | undefined;
  openAPISchema?(gvk: GroupVersionKind): unknown;
}
