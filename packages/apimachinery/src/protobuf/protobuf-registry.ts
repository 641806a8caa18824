import type { KubeObject, TypeMeta } from '../meta-types.js';
import { StatusError } from '../status-error.js';
import { decodeProtobufMessage } from './decode-message.js';
import { KUBERNETES_PROTOBUF_MAGIC, decodeKubernetesEnvelope } from './kubernetes-envelope.js';
import type { ProtobufMessageDescriptor } from './message-descriptor.js';
import { deleteOptionsDescriptor } from './meta-descriptors.js';
import { ProtobufWireError, utf8 } from './wire-reader.js';

/** Options for `ProtobufRegistry`. */
export interface ProtobufRegistryOptions {
  /** Register meta.k8s.io kinds that clients send under any apiVersion (DeleteOptions). Default true. */
  includeMetaKinds?: boolean;
}

/**
 * Decodes `application/vnd.kubernetes.protobuf` request bodies into the JSON object shape the
 * server works with. Kinds are registered with a descriptor (field numbers from upstream's generated.proto).
 *
 * ```ts
 * const registry = new ProtobufRegistry().register('v1', 'ConfigMap', configMapDescriptor);
 * const object = registry.decode(body); // { apiVersion: 'v1', kind: 'ConfigMap', metadata: {...}, data: {...} }
 * ```
 */
export class ProtobufRegistry {
  private readonly descriptors = new Map<string, ProtobufMessageDescriptor>();
  private readonly anyVersionDescriptors = new Map<string, ProtobufMessageDescriptor>();

  constructor(options: ProtobufRegistryOptions = {}) {
    if (options.includeMetaKinds ?? true)
      this.registerForAllVersions('DeleteOptions', deleteOptionsDescriptor);
  }

  /** Registers the message of `kind` in `apiVersion` (`v1`, `rbac.authorization.k8s.io/v1`). */
  register(apiVersion: string, kind: string, descriptor: ProtobufMessageDescriptor): this {
    this.descriptors.set(typeKey(apiVersion, kind), descriptor);
    return this;
  }

  /** Registers a kind accepted under every apiVersion (metav1 options such as DeleteOptions). */
  registerForAllVersions(kind: string, descriptor: ProtobufMessageDescriptor): this {
    this.anyVersionDescriptors.set(kind, descriptor);
    return this;
  }

  /** The descriptor used for `apiVersion`/`kind`, if any. */
  descriptorFor(apiVersion: string, kind: string): ProtobufMessageDescriptor | undefined {
    return this.descriptors.get(typeKey(apiVersion, kind)) ?? this.anyVersionDescriptors.get(kind);
  }

  /** True when `apiVersion`/`kind` can be decoded. */
  has(apiVersion: string, kind: string): boolean {
    return this.descriptorFor(apiVersion, kind) !== undefined;
  }

  /**
   * Decodes one Kubernetes protobuf payload (`k8s\x00` + runtime.Unknown) into a JSON-shaped object,
   * with `apiVersion` and `kind` taken from the envelope. Objects without ObjectMeta (DeleteOptions)
   * come back without `metadata`.
   * Throws `StatusError` 400 BadRequest for a missing magic prefix, an unregistered kind or malformed bytes.
   */
  decode(bytes: Uint8Array): KubeObject {
    try {
      const envelope = decodeKubernetesEnvelope(bytes);
      if (!envelope) {
        throw StatusError.badRequest(
          `provided data does not appear to be a protobuf message, expected prefix [${KUBERNETES_PROTOBUF_MAGIC.join(' ')}]`,
        );
      }
      if (!envelope.kind) throw StatusError.badRequest("Object 'Kind' is missing in protobuf envelope");
      if (envelope.contentEncoding) {
        throw StatusError.badRequest(`unsupported protobuf content encoding "${envelope.contentEncoding}"`);
      }
      const typeMeta: TypeMeta = { apiVersion: envelope.apiVersion, kind: envelope.kind };
      if (envelope.contentType && envelope.contentType !== 'application/vnd.kubernetes.protobuf') {
        return { ...parseEmbeddedJson(envelope.raw, envelope.contentType), ...typeMeta } as KubeObject;
      }
      const descriptor = this.descriptorFor(envelope.apiVersion, envelope.kind);
      if (!descriptor) {
        throw StatusError.badRequest(
          `no kind "${envelope.kind}" is registered for version "${envelope.apiVersion}" in the protobuf decoder`,
        );
      }
      return { ...typeMeta, ...decodeProtobufMessage(envelope.raw, descriptor) } as KubeObject;
    } catch (error) {
      if (error instanceof ProtobufWireError) {
        throw StatusError.badRequest(`unable to decode protobuf body: ${error.message}`);
      }
      throw error;
    }
  }
}

function typeKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}

function parseEmbeddedJson(raw: Uint8Array, contentType: string): Record<string, unknown> {
  if (!/^application\/json\b/i.test(contentType)) {
    throw StatusError.badRequest(`unsupported content type "${contentType}" inside protobuf envelope`);
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8(raw));
  } catch {
    throw StatusError.badRequest('unable to decode protobuf body: embedded JSON is malformed');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw StatusError.badRequest('unable to decode protobuf body: embedded JSON is not an object');
  }
  return value as Record<string, unknown>;
}
