import type { FieldError, GroupVersion, GroupVersionKind, KubeObject, Scheme } from '@kapi/apimachinery';
import type { CodecForOptions, SchemeLike } from '@kapi/server';
import { jsonCodec, type Codec } from '@kapi/storage';
import type { CompiledSchema } from '../schema/compiled-schema.js';

const gvkKey = (gvk: GroupVersionKind) => `${gvk.group}/${gvk.version}/${gvk.kind}`;

/** `apiVersion === "<group>/<version>"`, without building that string. */
function isAtGroupVersion(apiVersion: unknown, target: GroupVersion): boolean {
  if (typeof apiVersion !== 'string') return false;
  if (target.group === '') return apiVersion === target.version;
  const slash = target.group.length;
  return (
    apiVersion.length === slash + 1 + target.version.length &&
    apiVersion.charCodeAt(slash) === 47 &&
    apiVersion.startsWith(target.group) &&
    apiVersion.endsWith(target.version)
  );
}

/** A pruned and defaulted copy of `object`, which stays as it is. */
function normalized(object: KubeObject, schema: CompiledSchema): KubeObject {
  const copy = structuredClone(object);
  schema.prune(copy);
  schema.applyDefaults(copy);
  return copy;
}

/**
 * The scheme the CR handler serves with: a shared {@link Scheme} (which holds every kind, custom ones
 * included, for conversion, codecs and OpenAPI) whose validation, defaulting and pruning of custom
 * resources go to each CRD version's compiled structural schema instead.
 */
export class CustomResourceScheme implements SchemeLike {
  private readonly compiled = new Map<string, CompiledSchema>();
  /** `<group>/<kind>` of kinds converted by a webhook, which the store converts asynchronously. */
  private readonly convertedAsync = new Set<string>();
  /** The buffers each schema's codec encoded (pruned and defaulted), while they live. */
  private readonly encoded = new WeakMap<CompiledSchema, WeakSet<Uint8Array>>();

  constructor(readonly base: Scheme) {}

  /** Serves `gvk` with `schema` (replacing what was there). */
  setSchema(gvk: GroupVersionKind, schema: CompiledSchema): void {
    this.compiled.set(gvkKey(gvk), schema);
  }

  /**
   * Marks a kind as converted asynchronously by its store (a conversion webhook): its storage codec then
   * reads and writes objects at their own version, converting nothing. Set before its resource is installed.
   */
  setConvertedAsync(group: string, kind: string, converted: boolean): void {
    if (converted) this.convertedAsync.add(`${group}/${kind}`);
    else this.convertedAsync.delete(`${group}/${kind}`);
  }

  /** Forgets every version of a kind. */
  removeKind(group: string, kind: string): void {
    this.convertedAsync.delete(`${group}/${kind}`);
    for (const key of [...this.compiled.keys()]) if (key.startsWith(`${group}/`) && key.endsWith(`/${kind}`)) this.compiled.delete(key);
    this.base.removeKind(group, kind);
  }

  private schemaOf(object: KubeObject): CompiledSchema | undefined {
    if (this.compiled.size === 0) return undefined;
    return this.compiled.get(gvkKey(this.base.objectKind(object)));
  }

  convert(object: KubeObject, target: GroupVersion): KubeObject {
    // Stored objects read at their own version (every GET, LIST item and watch event of the storage
    // version) are returned as they are, so the bytes cached for that object are reused.
    if (isAtGroupVersion(object.apiVersion, target)) return object;
    // As upstream's schema-coercing converter: the converted copy holds what the target version declares.
    const converted = this.base.convert(object, target);
    this.schemaOf(converted)?.prune(converted);
    return converted;
  }

  toHub(object: KubeObject): KubeObject {
    return this.base.toHub(object);
  }

  applyDefaults(object: KubeObject): KubeObject {
    const schema = this.schemaOf(object);
    if (!schema) return this.base.applyDefaults(object);
    schema.applyDefaults(object);
    return object;
  }

  validate(object: KubeObject): FieldError[] {
    const schema = this.schemaOf(object);
    return schema ? schema.validate(object) : this.base.validate(object);
  }

  validateUpdate(object: KubeObject, old: KubeObject): FieldError[] {
    const schema = this.schemaOf(object);
    return schema ? schema.validate(object, old) : this.base.validate(object);
  }

  findUnknownFields(object: KubeObject): string[] {
    const schema = this.schemaOf(object);
    return schema ? schema.unknownFields(object) : this.base.findUnknownFields(object);
  }

  prune(object: KubeObject): string[] {
    const schema = this.schemaOf(object);
    return schema ? schema.prune(object) : this.base.prune(object);
  }

  /**
   * The base codec, plus what upstream's storage codec does for a custom resource: pruning of fields the
   * schema does not declare (here with the schema's defaults too) when writing, and pruning then defaulting
   * when reading, for fields and defaults the schema gained or lost since. Bytes this codec just wrote are
   * already both, so they decode as they are (and a create's response can reuse them): the store hands
   * its read-back and the watch events of its own writes the very buffer encoded here
   * ({@link Codec.recognizesOwnEncodings}), recognised by identity, with no key built from the bytes.
   */
  codecFor(options: CodecForOptions): Codec {
    // As upstream's storage decoder, an object read is pruned and defaulted by the schema of the version
    // it was stored at, then converted (and pruned by the hub's, whose defaults it does not get).
    let reading: Uint8Array | undefined;
    let convertedFrom: CompiledSchema | undefined;
    const beforeConversion = (object: KubeObject) => {
      const schema = this.schemaOf(object);
      if (!schema || (reading !== undefined && this.encoded.get(schema)?.has(reading))) return;
      schema.prune(object);
      schema.applyDefaults(object);
      convertedFrom = schema;
    };
    // Webhook-converted kinds are stored and read at their own version: the store awaits the webhook.
    const codec = this.convertedAsync.has(`${options.group}/${options.kind}`) ? jsonCodec : this.base.codecFor({ ...options, beforeConversion });
    return {
      encode: (object) => {
        // The store writes objects at the version they decode to (the hub), so this is the schema reads apply.
        const schema = this.schemaOf(object);
        if (!schema) return codec.encode(object);
        const data = codec.encode(schema.isPrunedAndDefaulted(object) ? object : normalized(object, schema));
        this.encodedBy(schema).add(data);
        return data;
      },
      decode: (data) => {
        reading = data;
        convertedFrom = undefined;
        const object = codec.decode(data);
        reading = undefined;
        const schema = this.schemaOf(object);
        if (schema && schema !== convertedFrom && !this.encoded.get(schema)?.has(data)) {
          schema.prune(object);
          // Defaults are the stored version's, applied before the conversion (when there was one).
          if (convertedFrom === undefined) schema.applyDefaults(object);
        }
        return object;
      },
      decodesVerbatim: () => codec.decodesVerbatim?.() ?? false,
      recognizesOwnEncodings: true,
    };
  }

  private encodedBy(schema: CompiledSchema): WeakSet<Uint8Array> {
    let encoded = this.encoded.get(schema);
    if (!encoded) this.encoded.set(schema, (encoded = new WeakSet()));
    return encoded;
  }

  kindFor(gvk: GroupVersionKind): { schema: unknown } | undefined {
    return this.base.kindFor(gvk);
  }

  openAPISchema(gvk: GroupVersionKind): unknown {
    return this.base.openAPISchema(gvk);
  }
}
