import { randomUUID } from 'node:crypto';
import {
  StatusError,
  parseGroupVersion,
  validateObjectMeta,
  type FieldError,
  type GroupResource,
  type KubeObject,
  type NameValidator,
} from '@kapi/apimachinery';
import type { RequestScope, ResourceDefinition } from '../resource-definition.js';
import type { SchemeLike } from '../scheme-like.js';
import type { WriteContext } from './generic-store.js';
import { FieldManager } from '../apply/field-manager.js';
import type { SchemaNode } from '../apply/schema-type.js';
import { mergeForUpdate, validateFinalizersWhileDeleting } from './merge-for-update.js';
import { copyObject, dropEmptyMetadata, formatTime } from './object-meta.js';
import { convertOne } from './async-converter.js';

/** What {@link WritePreparation.prepareUpdate} writes, besides the objects. */
export interface UpdateWrite {
  namespace: string;
  name: string;
  context: WriteContext;
  isPatch: boolean;
  /** The current object in the request version (the field manager compares against it). */
  currentVersioned?: KubeObject;
}

/** The kind's JSON schema at `apiVersion` (`group/version`), as the strategic merge patch uses it. */
export function kindSchema(
  scheme: SchemeLike,
  definition: ResourceDefinition,
  apiVersion: string,
): SchemaNode | undefined {
  const { group, version } = parseGroupVersion(apiVersion);
  const gvk = { group, version, kind: definition.kind };
  const schema = scheme.kindFor?.(gvk)?.schema ?? scheme.openAPISchema?.(gvk);
  return typeof schema === 'object' && schema !== null ? (schema as SchemaNode) : undefined;
}

/**
 * The checks and preparation of a write before it reaches storage (the create and update halves of
 * k8s.io/apiserver's rest.BeforeCreate/BeforeUpdate): defaulting, metadata and schema validation,
 * conversion to the hub version, and the resource strategy's hooks and admission.
 */
export class WritePreparation {
  /** Records managedFields of tracked writes (and performs server-side apply for the patch handler). */
  readonly fieldManager: FieldManager;

  constructor(
    private readonly definition: ResourceDefinition,
    private readonly scheme: SchemeLike,
    private readonly groupResource: GroupResource,
    private readonly now: () => Date,
  ) {
    this.fieldManager = new FieldManager({
      schemaFor: (apiVersion) => kindSchema(scheme, definition, apiVersion),
      statusSubresource: Boolean(definition.subresources?.status),
      now,
      convert: (object, apiVersion) => scheme.convert(copyObject(object), parseGroupVersion(apiVersion)),
    });
  }

  /** Records the write in managedFields (before validation and admission, as upstream) when tracked. */
  private recordUpdate(live: KubeObject | undefined, next: KubeObject, context: WriteContext): boolean {
    if (context.manager === undefined) return false;
    if (!context.managedFieldsComputed)
      this.fieldManager.update(live, next, { manager: context.manager, subresource: context.subresource });
    return true;
  }

  /** Options of metadata validation for this resource. */
  private metaValidation(): { namespaced: boolean; nameValidator?: NameValidator } {
    const { namespaced, nameValidator } = this.definition;
    return nameValidator ? { namespaced, nameValidator } : { namespaced };
  }

  /** A 422 Invalid Status for this kind. */
  invalid(name: string, errors: FieldError[]): StatusError {
    return StatusError.invalid({ group: this.definition.group, kind: this.definition.kind }, name, errors);
  }

  /** The strategy hooks' view of a write at `version` (the request's). */
  scope(namespace: string, name: string, context: WriteContext, version?: string): RequestScope {
    const scope: RequestScope = { namespace, name, subresource: context.subresource, dryRun: context.dryRun, convert: this.convert };
    if (context.user) scope.user = context.user;
    if (context.authorizer) scope.authorizer = context.authorizer;
    if (context.warn) scope.warn = context.warn;
    if (context.annotate) scope.annotate = context.annotate;
    if (version) scope.version = version;
    return scope;
  }

  /** {@link RequestScope.convert}: any version to `version`, on a copy. */
  private readonly convert = async (object: KubeObject, version: string): Promise<KubeObject> => {
    const converter = this.definition.converter;
    if (converter) return convertOne(converter, object, version);
    return this.scheme.convert(copyObject(object), { group: this.definition.group, version });
  };

  /** The request-version object in the hub version (through the definition's converter when it has one). */
  private toHub(object: KubeObject): KubeObject | Promise<KubeObject> {
    const converter = this.definition.converter;
    return converter ? convertOne(converter, object, converter.hubVersion) : this.scheme.toHub(object);
  }

  /**
   * The scheme's defaults applied, and metadata's empty maps and lists dropped, as decoding into Go's
   * ObjectMeta drops them (`omitempty`): a removed last label leaves no `labels: {}` behind.
   */
  private defaulted(object: KubeObject): KubeObject {
    const defaulted = this.scheme.applyDefaults(object) ?? object;
    dropEmptyMetadata(defaulted.metadata);
    return defaulted;
  }

  /**
   * Validates a request-version object, converts it to the hub and runs the create strategy; on a copy of
   * `object` unless it is `owned` (the caller's to give away: then it is changed).
   */
  async prepareCreate(
    object: KubeObject,
    namespace: string,
    context: WriteContext,
    owned = false,
  ): Promise<KubeObject> {
    let defaulted = this.defaulted(owned ? object : copyObject(object));
    this.recordUpdate(undefined, defaulted, context);
    if (this.definition.namespaced) defaulted.metadata.namespace = namespace;
    else delete defaulted.metadata.namespace;
    const mutate = this.definition.strategy?.mutate;
    if (mutate) {
      const scope = this.scope(namespace, defaulted.metadata.name ?? '', context, parseGroupVersion(defaulted.apiVersion ?? '').version);
      const mutated = mutate('create', defaulted, undefined, scope);
      defaulted = mutated instanceof Promise ? await mutated : mutated;
      if (this.definition.namespaced) defaulted.metadata.namespace = namespace;
    }
    const metadata = defaulted.metadata;
    const name = metadata.name ?? '';
    const errors = [
      ...validateObjectMeta(metadata, this.metaValidation()),
      ...this.scheme.validate(defaulted),
    ];
    if (errors.length > 0) throw this.invalid(name, errors);
    const hub = await this.toHub(defaulted);
    const scope = this.scope(namespace, name, context, parseGroupVersion(defaulted.apiVersion ?? '').version);
    const strategy = this.definition.strategy;
    if (this.definition.subresources?.status) delete hub['status'];
    strategy?.prepareForCreate?.(hub, scope);
    const strategyErrors = strategy?.validate?.(hub, scope) ?? [];
    if (strategyErrors.length > 0) throw this.invalid(name, strategyErrors);
    // The system fields first (upstream's BeforeCreate): validating admission sees the uid and creation time.
    hub.metadata.uid = randomUUID();
    hub.metadata.creationTimestamp = formatTime(this.now());
    if (this.definition.tracksGeneration !== false) hub.metadata.generation = 1;
    delete hub.metadata.resourceVersion;
    delete hub.metadata.deletionTimestamp;
    delete hub.metadata.deletionGracePeriodSeconds;
    delete hub.metadata.selfLink;
    await strategy?.admit?.('create', hub, undefined, scope);
    return hub;
  }

  /**
   * Validates an update (request version), records it in managedFields, merges it onto the current hub
   * object and runs the update strategy.
   */
  async prepareUpdate(requested: KubeObject, current: KubeObject, write: UpdateWrite): Promise<KubeObject> {
    const { namespace, name, context, isPatch } = write;
    let defaulted = this.defaulted(requested);
    const tracked = this.recordUpdate(write.currentVersioned, defaulted, context);
    const mutate = this.definition.strategy?.mutate;
    if (mutate) {
      const scope = this.scope(namespace, name, context, parseGroupVersion(defaulted.apiVersion ?? '').version);
      const mutated = mutate('update', defaulted, write.currentVersioned, scope);
      defaulted = mutated instanceof Promise ? await mutated : mutated;
    }
    const metadata = defaulted.metadata;
    if ((metadata.name ?? '') !== name) {
      throw StatusError.badRequest(
        `the name of the object (${metadata.name ?? ''}) does not match the name on the URL (${name})`,
      );
    }
    if (namespace && metadata.namespace && metadata.namespace !== namespace) {
      // A patch that moves the object (upstream's checkName after applying a patch).
      throw StatusError.badRequest(
        `the namespace of the object (${metadata.namespace}) does not match the namespace on the URL (${namespace})`,
      );
    }
    const currentVersion = current.metadata.resourceVersion ?? '';
    if (metadata.resourceVersion) {
      if (metadata.resourceVersion !== currentVersion)
        throw StatusError.conflictModified(this.groupResource, name);
    } else if (!isPatch && this.definition.strategy?.allowUnconditionalUpdate === false) {
      throw this.invalid(name, [
        {
          field: 'metadata.resourceVersion',
          type: 'FieldValueInvalid',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
    }
    if (this.definition.namespaced) metadata.namespace = namespace;
    const errors: FieldError[] = [];
    if (isPatch && metadata.uid && metadata.uid !== current.metadata.uid) {
      errors.push({
        field: 'metadata.uid',
        type: 'FieldValueInvalid',
        value: metadata.uid,
        detail: 'field is immutable',
      });
    }
    const schemaErrors =
      write.currentVersioned && this.scheme.validateUpdate
        ? this.scheme.validateUpdate(defaulted, write.currentVersioned)
        : this.scheme.validate(defaulted);
    errors.push(...validateObjectMeta(metadata, this.metaValidation()), ...schemaErrors);
    if (errors.length > 0) throw this.invalid(name, errors);
    const hub = mergeForUpdate(await this.toHub(defaulted), current, {
      statusSubresource: Boolean(this.definition.subresources?.status),
      subresource: context.subresource,
      managedFieldsTracked: tracked,
      tracksGeneration: this.definition.tracksGeneration !== false,
    });
    const finalizerErrors = validateFinalizersWhileDeleting(hub, current);
    if (finalizerErrors.length > 0) throw this.invalid(name, finalizerErrors);
    const scope = this.scope(namespace, name, context, parseGroupVersion(defaulted.apiVersion ?? '').version);
    const strategy = this.definition.strategy;
    strategy?.prepareForUpdate?.(hub, current, scope);
    const strategyErrors = strategy?.validateUpdate?.(hub, current, scope) ?? [];
    if (strategyErrors.length > 0) throw this.invalid(name, strategyErrors);
    await strategy?.admit?.('update', hub, current, scope);
    return hub;
  }
}
