import { randomUUID } from 'node:crypto';
import {
  StatusError,
  validateObjectMeta,
  type FieldError,
  type GroupResource,
  type KubeObject,
  type NameValidator,
} from '@kapi/apimachinery';
import type { RequestScope, ResourceDefinition } from '../resource-definition.js';
import type { SchemeLike } from '../scheme-like.js';
import type { WriteContext } from './generic-store.js';
import { mergeForUpdate, validateFinalizersWhileDeleting } from './merge-for-update.js';
import { copyObject, formatTime } from './object-meta.js';

/**
 * The checks and preparation of a write before it reaches storage (the create and update halves of
 * k8s.io/apiserver's rest.BeforeCreate/BeforeUpdate): defaulting, metadata and schema validation,
 * conversion to the hub version, and the resource strategy's hooks and admission.
 */
export class WritePreparation {
  constructor(
    private readonly definition: ResourceDefinition,
    private readonly scheme: SchemeLike,
    private readonly groupResource: GroupResource,
    private readonly now: () => Date,
  ) {}

  /** Options of metadata validation for this resource. */
  private metaValidation(): { namespaced: boolean; nameValidator?: NameValidator } {
    const { namespaced, nameValidator } = this.definition;
    return nameValidator ? { namespaced, nameValidator } : { namespaced };
  }

  /** A 422 Invalid Status for this kind. */
  invalid(name: string, errors: FieldError[]): StatusError {
    return StatusError.invalid({ group: this.definition.group, kind: this.definition.kind }, name, errors);
  }

  /** The strategy hooks' view of a write. */
  scope(namespace: string, name: string, context: WriteContext): RequestScope {
    const scope: RequestScope = { namespace, name, subresource: context.subresource, dryRun: context.dryRun };
    if (context.user) scope.user = context.user;
    return scope;
  }

  private defaulted(object: KubeObject): KubeObject {
    return this.scheme.applyDefaults(object) ?? object;
  }

  /** Validates a request-version object, converts it to the hub and runs the create strategy. */
  async prepareCreate(
    object: KubeObject,
    namespace: string,
    context: WriteContext,
  ): Promise<KubeObject> {
    const defaulted = this.defaulted(copyObject(object));
    const metadata = defaulted.metadata;
    if (this.definition.namespaced) metadata.namespace = namespace;
    else delete metadata.namespace;
    const name = metadata.name ?? '';
    const errors = [
      ...validateObjectMeta(metadata, this.metaValidation()),
      ...this.scheme.validate(defaulted),
    ];
    if (errors.length > 0) throw this.invalid(name, errors);
    const hub = this.scheme.toHub(defaulted);
    const scope = this.scope(namespace, name, context);
    const strategy = this.definition.strategy;
    if (this.definition.subresources?.status) delete hub['status'];
    strategy?.prepareForCreate?.(hub, scope);
    const strategyErrors = strategy?.validate?.(hub, scope) ?? [];
    if (strategyErrors.length > 0) throw this.invalid(name, strategyErrors);
    await strategy?.admit?.('create', hub, undefined, scope);
    hub.metadata.uid = randomUUID();
    hub.metadata.creationTimestamp = formatTime(this.now());
    hub.metadata.generation = 1;
    delete hub.metadata.resourceVersion;
    delete hub.metadata.deletionTimestamp;
    delete hub.metadata.deletionGracePeriodSeconds;
    delete hub.metadata.selfLink;
    return hub;
  }

  /** Creates an object given in `version`; returns it in `version`. */
  /** Validates an update (request version), merges it onto the current hub object and runs the update strategy. */
  async prepareUpdate(
    requested: KubeObject,
    current: KubeObject,
    namespace: string,
    name: string,
    context: WriteContext,
    isPatch: boolean,
  ): Promise<KubeObject> {
    const defaulted = this.defaulted(requested);
    const metadata = defaulted.metadata;
    if ((metadata.name ?? '') !== name) {
      throw StatusError.badRequest(
        `the name of the object (${metadata.name ?? ''}) does not match the name on the URL (${name})`,
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
    errors.push(...validateObjectMeta(metadata, this.metaValidation()), ...this.scheme.validate(defaulted));
    if (errors.length > 0) throw this.invalid(name, errors);
    const hub = mergeForUpdate(this.scheme.toHub(defaulted), current, {
      statusSubresource: Boolean(this.definition.subresources?.status),
      subresource: context.subresource,
    });
    const finalizerErrors = validateFinalizersWhileDeleting(hub, current);
    if (finalizerErrors.length > 0) throw this.invalid(name, finalizerErrors);
    const scope = this.scope(namespace, name, context);
    const strategy = this.definition.strategy;
    strategy?.prepareForUpdate?.(hub, current, scope);
    const strategyErrors = strategy?.validateUpdate?.(hub, current, scope) ?? [];
    if (strategyErrors.length > 0) throw this.invalid(name, strategyErrors);
    await strategy?.admit?.('update', hub, current, scope);
    return hub;
  }
}
