import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type RestClient } from '@kapi/client';
import { NAMESPACE_TERMINATING_CAUSE } from '../namespace-lifecycle.js';

/** The service accounts every Active namespace gets (upstream's `DefaultServiceAccountsControllerOptions`). */
export const SERVICE_ACCOUNTS_TO_ENSURE: readonly string[] = ['default'];

/** Options of a {@link ServiceAccountsController}. */
export interface ServiceAccountsControllerOptions {
  /** Names of the service accounts to ensure in every Active namespace; default {@link SERVICE_ACCOUNTS_TO_ENSURE}. */
  serviceAccounts?: readonly string[];
  /** Delay before a namespace whose sync failed is synced again (default 1 s). */
  retryDelayMs?: number;
  /** Told of a failed sync (not of refusals in a terminating namespace, nor of AlreadyExists). */
  onError?: (namespace: string, error: unknown) => void;
}

const isTerminatingRefusal = (error: unknown): boolean =>
  StatusError.isInstance(error) &&
  (error.status.details?.causes ?? []).some((cause) => cause.reason === NAMESPACE_TERMINATING_CAUSE);

/**
 * Upstream's serviceaccounts-controller (kube-controller-manager): every Active namespace holds a
 * ServiceAccount `default`, created when the namespace appears and again when someone deletes it. Informers
 * on namespaces and service accounts feed a work queue of namespace names; a Terminating namespace is left
 * alone (a create there is refused anyway), and a failed sync is retried after a delay.
 */
export class ServiceAccountsController {
  private readonly serviceAccounts: ResourceClient;
  private readonly namespaceInformer: Informer;
  private readonly serviceAccountInformer: Informer;
  private readonly names: readonly string[];
  private readonly queue = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    rest: RestClient,
    private readonly options: ServiceAccountsControllerOptions = {},
  ) {
    this.serviceAccounts = new ResourceClient(rest, {
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      namespaced: true,
    });
    this.namespaceInformer = new Informer(
      new ResourceClient(rest, { group: '', version: 'v1', resource: 'namespaces', namespaced: false }),
    );
    this.serviceAccountInformer = new Informer(this.serviceAccounts);
    this.names = options.serviceAccounts ?? SERVICE_ACCOUNTS_TO_ENSURE;
  }

  /** Starts both informers; namespaces are synced once both have listed. */
  start(): void {
    const enqueue = (namespace: KubeObject) => this.enqueue(namespace.metadata.name ?? '');
    this.namespaceInformer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, namespace) => enqueue(namespace),
    });
    this.serviceAccountInformer.addEventHandler({
      onDelete: (serviceAccount) => this.enqueue(serviceAccount.metadata.namespace ?? ''),
    });
    this.namespaceInformer.start();
    this.serviceAccountInformer.start();
  }

  /** Stops the informers and waits for a running sync. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    await Promise.all([this.namespaceInformer.stop(), this.serviceAccountInformer.stop()]);
    await this.running;
  }

  private enqueue(namespace: string): void {
    if (this.stopped || namespace === '') return;
    this.queue.add(namespace);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    // As upstream's WaitForNamedCacheSync: no decision before both caches are filled.
    while (
      !this.stopped &&
      !(this.namespaceInformer.hasSynced() && this.serviceAccountInformer.hasSynced())
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while (!this.stopped && this.queue.size > 0) {
      const namespace = this.queue.values().next().value as string;
      this.queue.delete(namespace);
      try {
        await this.syncNamespace(namespace);
      } catch (error) {
        this.options.onError?.(namespace, error);
        this.retryLater(namespace);
      }
    }
  }

  private retryLater(namespace: string): void {
    if (this.stopped || this.retries.has(namespace)) return;
    const timer = setTimeout(() => {
      this.retries.delete(namespace);
      this.enqueue(namespace);
    }, this.options.retryDelayMs ?? 1000);
    timer.unref();
    this.retries.set(namespace, timer);
  }

  /** Creates the missing service accounts of one namespace if it is Active (upstream's `syncNamespace`). */
  private async syncNamespace(name: string): Promise<void> {
    const namespace = this.namespaceInformer.indexer.get(name);
    if (!namespace) return;
    const phase = (namespace.status as { phase?: string } | undefined)?.phase;
    if (phase !== 'Active' || namespace.metadata.deletionTimestamp) return;
    const failures: unknown[] = [];
    for (const serviceAccount of this.names) {
      if (this.serviceAccountInformer.indexer.get(`${name}/${serviceAccount}`)) continue;
      try {
        await this.serviceAccounts.create(name, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: serviceAccount, namespace: name },
        });
      } catch (error) {
        if (StatusError.isInstance(error) && error.reason === 'AlreadyExists') continue;
        if (!isTerminatingRefusal(error)) failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
