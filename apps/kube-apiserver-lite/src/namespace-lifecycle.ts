import { StatusError, isQualifiedName, type FieldError, type KubeObject } from '@kapi/apimachinery';
import { ResourceClient, type RestClient } from '@kapi/client';
import type { ResourceDefinition, ResourceStrategy } from '@kapi/server';
import type { Interface } from '@kapi/storage';

/** Namespaces created at boot, which may never be deleted. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const immortal = new Set(['default', 'kube-system', 'kube-public']);

/** The finalizer that keeps a deleted namespace (Terminating) until its content is gone. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** The Status cause type of a create refused in a terminating namespace (upstream's `NamespaceTerminatingCause`). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** Reads namespaces for admission: the cached view first, a consistent read when that misses. */
export class NamespaceLookup {
  constructor(
    private readonly storage: Interface,
    private readonly prefix: string,
  ) {}

  async get(name: string): Promise<KubeObject | undefined> {
    const key = `${this.prefix}/${name}`;
    return (
      (await this.storage.get(key, { resourceVersion: '0', ignoreNotFound: true })) ??
      (await this.storage.get(key, { resourceVersion: '', ignoreNotFound: true }))
    );
  }
}

/**
 * NamespaceLifecycle admission for one namespaced resource: creates need an existing namespace
 * (404 `namespaces "x" not found`) that is not terminating (403).
 */
export function namespaceLifecycleAdmission(definition: ResourceDefinition, lookup: NamespaceLookup): ResourceStrategy['admit'] {
  const inner = definition.strategy?.admit;
  return async (operation, object, old, scope) => {
    if (operation === 'create' && scope.namespace) {
      const namespace = await lookup.get(scope.namespace);
      if (!namespace) throw StatusError.notFound({ group: '', resource: 'namespaces' }, scope.namespace);
      const phase = (namespace.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Terminating' || namespace.metadata.deletionTimestamp) {
        const error = StatusError.forbidden(
          { group: definition.group, resource: definition.resource },
          object.metadata.name ?? object.metadata.generateName ?? '',
          `unable to create new content in namespace ${scope.namespace} because it is being terminated`,
        );
        // As upstream's admission: a cause clients (the service account controller) recognise.
        error.status.details = {
          ...error.status.details,
          causes: [{ reason: NAMESPACE_TERMINATING_CAUSE, message: `namespace ${scope.namespace} is being terminated`, field: 'metadata.namespace' }],
        };
        throw error;
      }
    }
    await inner?.(operation, object, old, scope);
  };
}

type NamespaceSpec = { finalizers?: string[] };
const specOf = (object: KubeObject): NamespaceSpec => (object.spec ?? {}) as NamespaceSpec;
const phaseOf = (object: KubeObject): string | undefined => (object.status as { phase?: string } | undefined)?.phase;

/** Upstream's `validateFinalizerName` for `spec.finalizers`: a qualified name, or the standard `kubernetes`. */
function validateSpecFinalizers(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  (specOf(object).finalizers ?? []).forEach((finalizer, index) => {
    const field = `spec.finalizers[${index}]`;
    const messages = isQualifiedName(finalizer);
    if (messages.length === 0 && !finalizer.includes('/') && finalizer !== NAMESPACE_FINALIZER)
      messages.push('name is neither a standard finalizer name nor is it fully qualified');
    for (const detail of messages) errors.push({ field, type: 'FieldValueInvalid', value: finalizer, detail });
  });
  return errors;
}

/** Upstream's `ValidateNamespaceStatusUpdate`: the phase follows deletionTimestamp. */
function validatePhase(object: KubeObject): FieldError[] {
  const phase = phaseOf(object);
  if (!object.metadata.deletionTimestamp) {
    if (phase === 'Active') return [];
    return [{ field: 'status.Phase', type: 'FieldValueInvalid', value: phase ?? '', detail: "may only be 'Active' if `deletionTimestamp` is empty" }];
  }
  if (phase === 'Terminating') return [];
  return [{ field: 'status.Phase', type: 'FieldValueInvalid', value: phase ?? '', detail: "may only be 'Terminating' if `deletionTimestamp` is not empty" }];
}

/**
 * The namespace strategy, as upstream's: `spec.finalizers` gets the `kubernetes` finalizer on create and
 * changes only through `/finalize`; a namespace waits on them (and on metadata.finalizers) once deleted;
 * the status phase follows deletionTimestamp; the system namespaces are immortal.
 */
export function namespaceStrategy(base: ResourceStrategy | undefined): ResourceStrategy {
  return {
    ...base,
    prepareForCreate(object, scope) {
      base?.prepareForCreate?.(object, scope);
      const finalizers = specOf(object).finalizers ?? [];
      object.spec = { ...specOf(object), finalizers: finalizers.includes(NAMESPACE_FINALIZER) ? finalizers : [...finalizers, NAMESPACE_FINALIZER] };
      object.status = { phase: 'Active' };
    },
    prepareForUpdate(object, old, scope) {
      base?.prepareForUpdate?.(object, old, scope);
      const oldFinalizers = specOf(old).finalizers;
      if (scope.subresource === 'finalize') {
        // Only spec.finalizers changes through /finalize (status is kept by the status subresource rules).
        const finalizers = specOf(object).finalizers;
        object.spec = { ...specOf(old) };
        if (finalizers !== undefined) (object.spec as NamespaceSpec).finalizers = finalizers;
        else delete (object.spec as NamespaceSpec).finalizers;
      } else if (scope.subresource === '') {
        object.spec = { ...specOf(object) };
        if (oldFinalizers !== undefined) (object.spec as NamespaceSpec).finalizers = oldFinalizers;
        else delete (object.spec as NamespaceSpec).finalizers;
      }
    },
    validate(object, scope) {
      return [...(base?.validate?.(object, scope) ?? []), ...validateSpecFinalizers(object)];
    },
    validateUpdate(object, old, scope) {
      const errors = [...(base?.validateUpdate?.(object, old, scope) ?? []), ...validateSpecFinalizers(object)];
      if (scope.subresource === 'status') errors.push(...validatePhase(object));
      return errors;
    },
    hasPendingFinalizers: (object) => (specOf(object).finalizers ?? []).length > 0,
    prepareForDelete(object) {
      base?.prepareForDelete?.(object);
      // As upstream's namespace storage: the DELETE that marks a namespace makes it Terminating.
      if ((specOf(object).finalizers ?? []).length > 0 || (object.metadata.finalizers ?? []).length > 0)
        object.status = { ...(object.status as object | undefined), phase: 'Terminating' };
    },
    async admit(operation, object, old, scope) {
      if (operation === 'delete' && immortal.has(scope.name)) {
        throw StatusError.forbidden({ group: '', resource: 'namespaces' }, scope.name, 'this namespace may not be deleted');
      }
      await base?.admit?.(operation, object, old, scope);
    },
  };
}

/**
 * The namespace controller: a namespace with a deletionTimestamp is marked Terminating, every namespaced
 * object in it is deleted through the API (so their own finalizers apply), and then its finalizer is removed.
 */
export class NamespaceController {
  private stopped = false;
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly namespaces: ResourceClient;

  constructor(
    private readonly rest: RestClient,
    /** The namespaced resources served now (built-ins and the custom resources of established CRDs). */
    private readonly namespacedResources: () => readonly ResourceDefinition[],
  ) {
    this.namespaces = new ResourceClient(rest, { group: '', version: 'v1', resource: 'namespaces', namespaced: false });
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private retryLater(name: string): void {
    if (this.stopped || this.retries.has(name)) return;
    const timer = setTimeout(() => {
      this.retries.delete(name);
      void this.namespaces
        .get(undefined, name)
        .then((namespace) => (namespace.metadata.deletionTimestamp ? this.finalize(namespace) : undefined))
        .catch(() => undefined);
    }, 1000);
    timer.unref();
    this.retries.set(name, timer);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.namespaces.list();
        for (const namespace of list.items) if (namespace.metadata.deletionTimestamp) await this.finalize(namespace);
        const watch = await this.namespaces.watch(undefined, { resourceVersion: list.metadata.resourceVersion ?? '', timeoutSeconds: 300 });
        for await (const event of watch) {
          if (this.stopped) break;
          const namespace = event.object as KubeObject;
          if ((event.type === 'ADDED' || event.type === 'MODIFIED') && namespace.metadata.deletionTimestamp) await this.finalize(namespace);
        }
        watch.stop();
      } catch {
        // retry below
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /** Empties a terminating namespace and removes its finalizer. */
  async finalize(namespace: KubeObject): Promise<void> {
    const name = namespace.metadata.name ?? '';
    if ((namespace.status as { phase?: string } | undefined)?.phase !== 'Terminating') {
      namespace = await this.namespaces.updateStatus(undefined, { ...namespace, status: { ...(namespace.status as object), phase: 'Terminating' } });
    }
    let remaining = 0;
    for (const definition of this.namespacedResources()) {
      const client = new ResourceClient(this.rest, { group: definition.group, version: definition.versions[0] ?? 'v1', resource: definition.resource, namespaced: true });
      const items = (await client.list(name)).items;
      for (const item of items) {
        if (!item.metadata.deletionTimestamp) await client.delete(name, item.metadata.name ?? '').catch(() => undefined);
      }
      const left = (await client.list(name)).items.length;
      if (left > 0) remaining += left;
    }
    if (remaining > 0) {
      // Objects held by their own finalizers: check again until they are gone (their removal does not
      // touch the namespace, so no namespace event would wake us).
      this.retryLater(name);
      return;
    }
    let fresh = await this.namespaces.get(undefined, name);
    // Namespaces stored by earlier versions of this server carry the finalizer in metadata.finalizers.
    const legacy = (fresh.metadata.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
    if (legacy.length !== (fresh.metadata.finalizers ?? []).length) {
      fresh = await this.namespaces.update(undefined, { ...fresh, metadata: { ...fresh.metadata, finalizers: legacy } });
    }
    // Through /finalize, as upstream's namespace controller: the server removes the namespace once no
    // finalizer (spec or metadata) is left.
    const finalizers = ((fresh.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
    if (finalizers.length !== ((fresh.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length) {
      await this.rest.request({ method: 'PUT', path: `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`, body: { ...fresh, spec: { ...(fresh.spec as object), finalizers } } });
    }
  }
}
