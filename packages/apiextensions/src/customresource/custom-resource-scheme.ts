import type { FieldError, GroupVersion, GroupVersionKind, KubeObject, Scheme } from '@kapi/apimachinery';
import type { CodecForOptions, SchemeLike } from '@kapi/server';
import { jsonCodec, type Codec } from '@kapi/storage';
import type { CompiledSchema } from '../schema/compiled-schema.js';

const gvkKey = (gvk: GroupVersionKind) => `${gvk.group}/${gvk.version}/${gvk.kind}`;

/**
 * The scheme the CR handler serves with: a shared {@link Scheme} (which holds every kind, custom ones
 * included, for conversion, codecs and OpenAPI) whose validation, defaulting and pruning of custom
 * resources go to each CRD version's compiled structural schema instead.
 */
export class CustomResourceScheme implements SchemeLike {
  private readonly compiled = new Map<string, CompiledSchema>();
  /** `<group>/<kind>` of kinds converted by a webhook, which the store converts asynchronously. */
  private readonly convertedAsync = new Set<string>();

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
    return this.base.convert(object, target);
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
    return schema ? schema.prune(structuredClone(object)) : this.base.findUnknownFields(object);
  }

  prune(object: KubeObject): string[] {
    const schema = this.schemaOf(object);
    return schema ? schema.prune(object) : this.base.prune(object);
  }

  codecFor(options: CodecForOptions): Codec {
    if (this.convertedAsync.has(`${options.group}/${options.kind}`)) return jsonCodec;
    return this.base.codecFor(options);
  }

  kindFor(gvk: GroupVersionKind): { schema: unknown } | undefined {
    return this.base.kindFor(gvk);
  }

  openAPISchema(gvk: GroupVersionKind): unknown {
    return this.base.openAPISchema(gvk);
  }
}
