import { WireReader, WireType } from './wire-reader.js';

/** The 4-byte prefix of every Kubernetes protobuf payload: `k8s\x00`. */
export const KUBERNETES_PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The Kubernetes protobuf media type. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** runtime.Unknown, the envelope around every Kubernetes protobuf object. */
export interface KubernetesEnvelope {
  /** From typeMeta (runtime.TypeMeta {apiVersion = 1, kind = 2}). */
  apiVersion: string;
  kind: string;
  /** The object's own message bytes. */
  raw: Uint8Array;
  /** Usually empty (no encoding). */
  contentEncoding: string;
  /** Usually empty (the raw bytes are protobuf). */
  contentType: string;
}

/** True when `contentType` is `application/vnd.kubernetes.protobuf` (parameters ignored). */
export function isProtobufMediaType(contentType: string | undefined | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType === PROTOBUF_MEDIA_TYPE;
}

/** True when `bytes` starts with the `k8s\x00` magic prefix. */
export function hasKubernetesMagic(bytes: Uint8Array): boolean {
  if (bytes.length < KUBERNETES_PROTOBUF_MAGIC.length) return false;
  return KUBERNETES_PROTOBUF_MAGIC.every((byte, index) => bytes[index] === byte);
}

/**
 * Unwraps a Kubernetes protobuf payload: checks the magic prefix, then decodes the runtime.Unknown
 * message { typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4 }.
 * Throws `ProtobufWireError` for malformed bytes; returns undefined when the magic prefix is missing.
 */
export function decodeKubernetesEnvelope(bytes: Uint8Array): KubernetesEnvelope | undefined {
  if (!hasKubernetesMagic(bytes)) return undefined;
  const envelope: KubernetesEnvelope = {
    apiVersion: '',
    kind: '',
    raw: new Uint8Array(0),
    contentEncoding: '',
    contentType: '',
  };
  const reader = new WireReader(bytes.subarray(KUBERNETES_PROTOBUF_MAGIC.length));
  while (!reader.done) {
    const { fieldNumber, wireType } = reader.readTag();
    if (wireType !== WireType.lengthDelimited || fieldNumber > 4) {
      reader.skip(wireType);
      continue;
    }
    const value = reader.readLengthDelimited();
    if (fieldNumber === 1) {
      const typeMeta = new WireReader(value);
      while (!typeMeta.done) {
        const tag = typeMeta.readTag();
        if (tag.fieldNumber === 1 && tag.wireType === WireType.lengthDelimited)
          envelope.apiVersion = typeMeta.readString();
        else if (tag.fieldNumber === 2 && tag.wireType === WireType.lengthDelimited)
          envelope.kind = typeMeta.readString();
        else typeMeta.skip(tag.wireType);
      }
    } else if (fieldNumber === 2) {
      envelope.raw = value;
    } else if (fieldNumber === 3) {
      envelope.contentEncoding = new TextDecoder().decode(value);
    } else {
      envelope.contentType = new TextDecoder().decode(value);
    }
  }
  return envelope;
}
