import { setCondition, type Condition, type KubeObject } from '@kapi/apimachinery';
import { ResourceClient, sleep, type RestClient } from '@kapi/client';
import type { CustomResourceHandler } from '../customresource/custom-resource-handler.js';
import { validateCustomResourceSchema } from '../schema/validate-custom-resource-schema.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { calculateNames } from './names.js';
import { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, isConditionTrue, type CustomResourceDefinition } from './types.js';

const crdRef = { group: APIEXTENSIONS_GROUP, version: 'v1', resource: 'customresourcedefinitions', namespaced: false };

/** Conditions set without the lastTransitionTime bookkeeping. */
type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** NonStructuralSchema reasons of every version's schema. */
function nonStructuralReasons(crd: CustomResourceDefinition): string[] {
  return crd.spec.versions.flatMap((version, i) => {
    const schema = version.schema?.openAPIV3Schema;
    return schema ? validateCustomResourceSchema(schema as JSONSchemaProps, `spec.versions[${i}].schema.openAPIV3Schema`).nonStructural : [];
  });
}

/**
 * The CRD controllers in one reconcile loop (upstream's naming, establishing, non-structural-schema and
 * finalizer controllers): sets NamesAccepted, Established and NonStructuralSchema, serves established
 * CRDs through the {@link CustomResourceHandler}, and on deletion removes every custom resource before
 * dropping the `customresourcecleanup.apiextensions.k8s.io` finalizer.
 */
export class CustomResourceDefinitionController {
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private readonly client: ResourceClient<CustomResourceDefinition>;
  private readonly abort = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  /** CRDs whose instances are being deleted (beside the queue: that waits up to a minute per try). */
  private readonly finalizing = new Set<string>();

  constructor(
    private readonly rest: RestClient,
    private readonly handler: CustomResourceHandler,
  ) {
    this.client = new ResourceClient<CustomResourceDefinition>(rest, crdRef);
  }

  /** Starts the list-and-watch loop; resolves after the first list was reconciled. */
  async start(): Promise<void> {
    let synced: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (synced = resolve));
    void this.loop(() => synced());
    await first;
  }

  /** Stops watching. */
  stop(): void {
    this.abort.abort();
  }

  private async loop(onSynced: () => void): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const list = await this.client.list();
        const names = new Set(list.items.map((crd) => crd.metadata.name ?? ''));
        for (const name of [...this.crds.keys()]) if (!names.has(name)) this.enqueueDelete(name);
        for (const crd of list.items) this.crds.set(crd.metadata.name ?? '', crd);
        for (const crd of list.items) this.enqueue(crd.metadata.name ?? '');
        await this.queue;
        onSynced();
        const watch = await this.client.watch(undefined, { resourceVersion: list.metadata.resourceVersion ?? '', timeoutSeconds: 300 }, this.abort.signal);
        for await (const event of watch) {
          if (this.abort.signal.aborted) break;
          if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
          const crd = event.object as CustomResourceDefinition;
          const name = crd.metadata.name ?? '';
          if (event.type === 'DELETED') this.enqueueDelete(name);
          else {
            this.crds.set(name, crd);
            this.enqueue(name);
          }
        }
        watch.stop();
      } catch {
        // relist below
      }
      if (!this.abort.signal.aborted) await sleep(1000, this.abort.signal).catch(() => undefined);
    }
  }

  private enqueue(name: string): void {
    this.queue = this.queue.then(() => this.reconcile(name)).catch(() => this.retry(name));
  }

  private enqueueDelete(name: string): void {
    const group = this.crds.get(name)?.spec.group;
    this.crds.delete(name);
    this.queue = this.queue.then(() => this.handler.forget(name)).catch(() => undefined);
    // Names a deleted CRD held are free again: CRDs of its group waiting for theirs try again.
    for (const [other, crd] of this.crds) {
      if (crd.spec.group === group && !isConditionTrue(crd, 'NamesAccepted')) this.enqueue(other);
    }
  }

  private retry(name: string): void {
    setTimeout(() => {
      if (!this.abort.signal.aborted && this.crds.has(name)) this.enqueue(name);
    }, 1000).unref();
  }

  private async reconcile(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp) return this.finalizeBeside(name);
    const others = [...this.crds.values()];
    const { acceptedNames, condition } = calculateNames(crd, others);
    let conditions = setCondition(crd.status?.conditions ?? undefined, condition);
    const established = isConditionTrue(crd, 'Established');
    if (condition.status === 'True') {
      if (!established) conditions = setCondition(conditions, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    } else if (!established) {
      conditions = setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    }
    const reasons = nonStructuralReasons(crd);
    if (reasons.length > 0) conditions = setCondition(conditions, { type: 'NonStructuralSchema', status: 'True', reason: 'Violations', message: reasons.join(', ') });
    else conditions = conditions.filter((c) => c.type !== 'NonStructuralSchema');
    // Served before Established is published, so a client that waited for Established finds the resource.
    const next: CustomResourceDefinition = { ...crd, status: { ...crd.status, acceptedNames, conditions, storedVersions: crd.status?.storedVersions ?? [] } };
    if (isConditionTrue(next, 'Established')) await this.handler.serve(next);
    await this.updateStatus(crd, acceptedNames, conditions);
  }

  private async updateStatus(
    crd: CustomResourceDefinition,
    acceptedNames: CustomResourceDefinition['spec']['names'],
    conditions: Condition[],
  ): Promise<CustomResourceDefinition> {
    const status = { ...crd.status, acceptedNames, conditions, storedVersions: crd.status?.storedVersions ?? [] };
    if (JSON.stringify(status) === JSON.stringify(crd.status)) return crd;
    const updated = await this.client.updateStatus(undefined, { ...crd, status });
    this.crds.set(crd.metadata.name ?? '', updated);
    return updated;
  }

  private setTerminating(crd: CustomResourceDefinition, condition: Omit<ConditionInput, 'type'>): Promise<CustomResourceDefinition> {
    const conditions = setCondition(crd.status?.conditions ?? undefined, { type: 'Terminating', ...condition });
    return this.updateStatus(crd, crd.status?.acceptedNames ?? crd.spec.names, conditions);
  }

  /**
   * Finalizes a terminating CRD outside the queue, once at a time per CRD: waiting for its instances'
   * own finalizers must not hold back every other CRD's names and establishment.
   */
  private finalizeBeside(name: string): void {
    const crd = this.crds.get(name);
    if (!crd || this.finalizing.has(name)) return;
    this.finalizing.add(name);
    this.finalize(crd).then(
      () => this.finalizing.delete(name),
      () => {
        this.finalizing.delete(name);
        this.retry(name);
      },
    );
  }

  /** Deletes every custom resource of a terminating CRD, then drops the cleanup finalizer. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    const name = crd.metadata.name ?? '';
    this.handler.setTerminating(name);
    if (!isConditionTrue(crd, 'Established')) {
      crd = await this.setTerminating(crd, { status: 'False', reason: 'NeverEstablished', message: 'resource was never established' });
    } else {
      crd = await this.setTerminating(crd, { status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      await this.handler.serve(crd);
      try {
        await this.deleteInstances(crd);
      } catch (error) {
        // Instances still there after a minute (held by their finalizers): upstream's condition until the next try.
        if (error instanceof InstancesRemain)
          await this.setTerminating(crd, { status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${error.message}` });
        throw error;
      }
      crd = await this.setTerminating(crd, { status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' });
    }
    await this.client.update(undefined, {
      ...crd,
      metadata: { ...crd.metadata, finalizers: (crd.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER) },
    });
  }

  private async deleteInstances(crd: CustomResourceDefinition): Promise<void> {
    const names = crd.status?.acceptedNames ?? crd.spec.names;
    const version = crd.spec.versions.find((v) => v.served)?.name ?? '';
    const path = `/apis/${crd.spec.group}/${version}/${names.plural}`;
    const namespaced = crd.spec.scope === 'Namespaced';
    const body = { kind: 'DeleteOptions', apiVersion: 'v1' };
    for (let attempt = 0; attempt < 12; attempt++) {
      const remaining = await this.rest.request<{ items?: KubeObject[] }>({ method: 'GET', path });
      const items = remaining.items ?? [];
      if (items.length === 0) return;
      // DeleteCollection in each namespace (a cluster-wide DELETE of a namespaced resource is not served).
      const namespaces = new Set(items.map((item) => item.metadata.namespace ?? ''));
      for (const namespace of namespaces) {
        const target = namespaced ? `/apis/${crd.spec.group}/${version}/namespaces/${namespace}/${names.plural}` : path;
        await this.rest.request({ method: 'DELETE', path: target, body });
      }
      if (attempt > 0) await sleep(5000, this.abort.signal);
    }
    throw new InstancesRemain();
  }
}

/** A terminating CRD's instances outlived the minute its finalizer waits for them (upstream's poll timeout). */
class InstancesRemain extends Error {
  constructor() {
    super('timed out waiting for the condition');
  }
}
