import { StatusError } from '@kapi/apimachinery';
import { Informer, LeaderElector, type Lease, type ResourceClient } from '@kapi/client';
import { setCommonEncodingVersion } from './common-encoding-version.js';
import type { StorageVersion } from './storage-version-api.js';

/** Options of a {@link StorageVersionGarbageCollector}. */
export interface StorageVersionGCOptions {
  leases: ResourceClient<Lease>;
  storageVersions: ResourceClient<StorageVersion>;
  /** This replica's identity (leader-election candidate name). */
  identity: string;
  /** Leader-election lease name in kube-system; default `storage-version-garbage-collector`. */
  leaderLeaseName?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Label value of identity leases; default `kube-apiserver`. */
  component?: string;
  /** Called whenever this replica changed a StorageVersion (pruned, updated or deleted). */
  onAction?(action: { storageVersion: string; removedServers: string[]; deleted: boolean }): void;
}

/**
 * Removes the entries of apiservers that no longer have an identity lease from every StorageVersion,
 * recomputes the common encoding version, and deletes StorageVersions left with no entries. Leader-elected
 * through a Lease, so only one replica acts at a time. Triggered by identity-lease deletions and by
 * StorageVersions naming a server with no lease (upstream storageversiongc).
 */
export class StorageVersionGarbageCollector {
  private readonly elector: LeaderElector;
  private leaseInformer: Informer | undefined;
  private storageVersionInformer: Informer | undefined;
  private queue: Promise<void> = Promise.resolve();
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: StorageVersionGCOptions) {
    this.elector = new LeaderElector({
      leases: options.leases,
      namespace: 'kube-system',
      name: options.leaderLeaseName ?? 'storage-version-garbage-collector',
      identity: options.identity,
      ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
      ...(options.renewDeadlineMs !== undefined ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
      ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
      onStartedLeading: (signal) => this.lead(signal),
    });
  }

  /** True while this replica is the acting collector. */
  isLeader(): boolean {
    return this.elector.isLeader();
  }

  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    this.running = this.elector.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    await Promise.all([this.leaseInformer?.stop(), this.storageVersionInformer?.stop()]);
    this.running = undefined;
  }

  private lead(signal: AbortSignal): void {
    const selector = `apiserver.kubernetes.io/identity=${this.options.component ?? 'kube-apiserver'}`;
    this.leaseInformer = new Informer(this.options.leases, { namespace: 'kube-system', labelSelector: selector, retryDelayMs: 500 });
    this.storageVersionInformer = new Informer(this.options.storageVersions, { retryDelayMs: 500 });
    this.leaseInformer.addEventHandler({ onDelete: () => this.enqueueAll() });
    this.storageVersionInformer.addEventHandler({
      onAdd: (object) => this.enqueueIfStale(object as StorageVersion),
      onUpdate: (_old, object) => this.enqueueIfStale(object as StorageVersion),
    });
    this.leaseInformer.start();
    this.storageVersionInformer.start();
    signal.addEventListener('abort', () => {
      void this.leaseInformer?.stop();
      void this.storageVersionInformer?.stop();
    }, { once: true });
    void this.leaseInformer.waitForSync().then(() => this.enqueueAll(), () => undefined);
  }

  private liveIDs(): Set<string> {
    return new Set((this.leaseInformer?.indexer.list() ?? []).map((lease) => lease.metadata.name ?? ''));
  }

  private enqueueIfStale(object: StorageVersion): void {
    if (!this.leaseInformer?.hasSynced()) return;
    const live = this.liveIDs();
    if ((object.status?.storageVersions ?? []).some((entry) => !live.has(entry.apiServerID))) this.enqueue(object.metadata.name ?? '');
  }

  private enqueueAll(): void {
    for (const object of this.storageVersionInformer?.indexer.list() ?? []) this.enqueueIfStale(object as StorageVersion);
  }

  private enqueue(name: string): void {
    this.queue = this.queue.then(() => (this.isLeader() ? this.collect(name) : undefined)).catch(() => undefined);
  }

  /** Whether an identity lease exists right now (a live read, not the cache). */
  private async leaseExists(name: string): Promise<boolean> {
    try {
      await this.options.leases.get('kube-system', name);
      return true;
    } catch (error) {
      if (StatusError.isInstance(error) && error.code === 404) return false;
      throw error;
    }
  }

  /** Prunes one StorageVersion; retried on conflict. */
  async collect(name: string): Promise<void> {
    const client = this.options.storageVersions;
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: StorageVersion;
      try {
        current = await client.get(undefined, name);
      } catch (error) {
        if (StatusError.isInstance(error) && error.code === 404) return;
        throw error;
      }
      const entries = current.status?.storageVersions ?? [];
      const removed: string[] = [];
      for (const entry of entries) if (!(await this.leaseExists(entry.apiServerID))) removed.push(entry.apiServerID);
      if (removed.length === 0) return;
      const remaining = entries.filter((entry) => !removed.includes(entry.apiServerID));
      try {
        if (remaining.length === 0) {
          await client.delete(undefined, name, {
            preconditions: { ...(current.metadata.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}) },
          });
        } else {
          await client.updateStatus(undefined, setCommonEncodingVersion({ ...current, status: { ...current.status, storageVersions: remaining } }));
        }
        this.options.onAction?.({ storageVersion: name, removedServers: removed, deleted: remaining.length === 0 });
        return;
      } catch (error) {
        if (!(StatusError.isInstance(error) && error.code === 409)) throw error;
      }
    }
  }
}
