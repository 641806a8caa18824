import { parseGroupVersion, groupVersionString } from './group-version.js';
import type { KubeObject } from './meta-types.js';
import type { Scheme } from './scheme.js';

/** Options of `Scheme.codecFor`. */
export interface SchemeCodecOptions {
  group: string;
  kind: string;
  /** The version written (`v1`), or a function evaluated on every encode (storage-version voting). */
  encodingVersion: string | (() => string);
  /** Versions accepted by decode; default: every version of the kind registered at decode time. */
  decodableVersions?: string[];
  /**
   * Called with each decoded object at the version it was stored at, before its conversion to the hub, and
   * free to change it (a custom resource gets the defaults of the schema it was written under).
   */
  beforeConversion?: (object: KubeObject) => void;
}

/** Encodes hub objects to JSON bytes at the encoding version and decodes stored bytes back to the hub. */
export interface SchemeCodec {
  encode(object: KubeObject): Uint8Array;
  decode(data: Uint8Array): KubeObject;
  /** True while the encoding version is the hub (decode converts nothing, so it is the bytes' JSON parse). */
  decodesVerbatim(): boolean;
  /**
   * True when `encode(object)` is `object`'s JSON as it stands and decode gives back that JSON's parse:
   * the encoding version is the hub and `object` is already at it.
   */
  encodesVerbatim(object: KubeObject): boolean;
}

/** Implementation of `Scheme.codecFor`. */
export function createSchemeCodec(scheme: Scheme, options: SchemeCodecOptions): SchemeCodec {
  const { group, kind } = options;
  const encodingVersion =
    typeof options.encodingVersion === 'function'
      ? options.encodingVersion
      : (): string => options.encodingVersion as string;
  const decodable = options.decodableVersions ? new Set(options.decodableVersions) : undefined;
  /** An object at a registered version of the kind keeps it; anything else is taken to be the hub. */
  function asKnownVersion(object: KubeObject): KubeObject {
    if (object.kind === kind && typeof object.apiVersion === 'string') {
      const gv = parseGroupVersion(object.apiVersion);
      if (gv.group === group && scheme.kindFor({ group, version: gv.version, kind })) return object;
    }
    return {
      ...object,
      apiVersion: groupVersionString({ group, version: scheme.hubVersion(group, kind) }),
      kind,
    };
  }
  return {
    encode(object) {
      const version = encodingVersion();
      const target = groupVersionString({ group, version });
      let out: KubeObject;
      if (object.apiVersion === target && object.kind === kind) {
        // Fast path: already at the encoding version (normally the hub), no conversion and no copy.
        out = object;
      } else {
        out = scheme.convertObject(asKnownVersion(object), version, group, false);
      }
      return Buffer.from(JSON.stringify(out), 'utf8');
    },
    decode(data) {
      const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Error(`stored value is not a ${kind} object`);
      }
      const object = value as KubeObject;
      if (typeof object.metadata !== 'object' || object.metadata === null) {
        throw new Error(`stored ${kind} object has no metadata`);
      }
      if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
        throw new Error(`stored ${kind} object has no apiVersion or kind`);
      }
      const gv = parseGroupVersion(object.apiVersion);
      if (object.kind !== kind || gv.group !== group) {
        throw new Error(
          `stored object is ${object.apiVersion}, Kind=${object.kind}, expected ${kind} of group "${group}"`,
        );
      }
      // Without a decodable list, any registered version decodes (asked of the scheme: no Set per decode).
      const allowed = decodable ? decodable.has(gv.version) : scheme.kindFor({ group, version: gv.version, kind }) !== undefined;
      if (!allowed) {
        throw new Error(`apiVersion "${object.apiVersion}" of kind ${kind} is not decodable by this server`);
      }
      options.beforeConversion?.(object);
      return scheme.convertObject(object, scheme.hubVersion(group, kind), group, true);
    },
    decodesVerbatim() {
      return encodingVersion() === scheme.hubVersion(group, kind);
    },
    encodesVerbatim(object) {
      const version = encodingVersion();
      return object.kind === kind && version === scheme.hubVersion(group, kind) && object.apiVersion === groupVersionString({ group, version });
    },
  };
}
