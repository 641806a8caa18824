import { StatusError, groupResourceString, type GroupResource } from '@kapi/apimachinery';
import type { ResourceClient } from '@kapi/client';
import { setCommonEncodingVersion } from './common-encoding-version.js';
import { storageVersionName, type ServerStorageVersion, type StorageVersion } from './storage-version-api.js';

/** What one persisted resource of this server encodes, decodes and serves. Versions are `v1` or `apps/v1`. */
export interface ResourceInfo {
  groupResource: GroupResource;
  encodingVersion: string;
  decodableVersions: string[];
  servedVersions: string[];
  /** Other GroupResources stored in the same place (e.g. ingresses.extensions ~ ingresses.networking.k8s.io), with their versions. */
  equivalentResources?: Array<{ groupResource: GroupResource; versions: string[] }>;
}

/** Options of a {@link StorageVersionManager}. */
export interface StorageVersionManagerOptions {
  /** Delay between retries; default 1000 ms as upstream. */
  retryDelayMs?: number;
  /** Called after each resource's update with its outcome (for /metrics). */
  onUpdate?(groupResource: GroupResource, outcome: 'success' | 'conflict' | 'error'): void;
}

/** Where {@link StorageVersionManager.updateStorageVersions} writes. */
export interface UpdateTarget {
  /** Client for internal.apiserver.k8s.io/v1alpha1 storageversions. */
  storageVersions: ResourceClient<StorageVersion>;
  /** IDs of the apiservers that currently hold an identity lease; entries of other servers are dropped. */
  liveServerIDs?: () => Promise<ReadonlySet<string>>;
}

const key = (gr: GroupResource) => groupResourceString(gr);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Publishes this server's storage versions (KEP-2339): registers every persisted resource, then creates or
 * updates each StorageVersion object with this server's entry. Until that completes, its resources are
 * pending and the write barrier refuses writes to them.
 */
export class StorageVersionManager {
  private readonly infos = new Map<string, ResourceInfo>();
  private readonly pending = new Set<string>();
  private readonly lastErrors = new Map<string, string>();
  private completedFlag = false;

  constructor(private readonly options: StorageVersionManagerOptions = {}) {}

  /** Registers a resource and marks it (and its equivalents) pending. */
  addResourceInfo(info: ResourceInfo): void {
    this.infos.set(key(info.groupResource), info);
    this.pending.add(key(info.groupResource));
    for (const equivalent of info.equivalentResources ?? []) this.pending.add(key(equivalent.groupResource));
    this.completedFlag = false;
  }

  /**
   * Changes the versions of a resource that keeps serving, without marking it pending: for a voted storage
   * version switch (seed 001), where every write is already conditioned on the new selection, so refusing
   * writes until the StorageVersion object catches up would only add downtime. Registers it when unknown.
   */
  replaceResourceInfo(info: ResourceInfo): void {
    if (!this.infos.has(key(info.groupResource))) {
      this.addResourceInfo(info);
      return;
    }
    this.infos.set(key(info.groupResource), info);
  }

  /** Forgets a resource that is no longer served (e.g. a deleted CRD's); it is no longer pending. */
  removeResourceInfo(gr: GroupResource): void {
    this.infos.delete(key(gr));
    this.pending.delete(key(gr));
    this.lastErrors.delete(key(gr));
  }

  /** The registered resources, sorted by (group, resource). */
  resourceInfos(): ResourceInfo[] {
    return [...this.infos.values()].sort(
      (a, b) => a.groupResource.group.localeCompare(b.groupResource.group) || a.groupResource.resource.localeCompare(b.groupResource.resource),
    );
  }

  /** True once every registered resource's StorageVersion was updated. */
  completed(): boolean {
    return this.completedFlag;
  }

  /** True while writes to this GroupResource must wait. */
  isPending(gr: GroupResource): boolean {
    return !this.completedFlag && this.pending.has(key(gr));
  }

  /** The last error seen updating this GroupResource, as upstream formats it (`<nil>` when none). */
  lastError(gr: GroupResource): string {
    return this.lastErrors.get(key(gr)) ?? '<nil>';
  }

  /**
   * Updates every StorageVersion with this server's entry (upstream UpdateStorageVersions): equivalent
   * resources deduped (first in sort order wins) and added to decodableVersions; conflicts retried without
   * limit; other errors retried 3 times. Marks the manager completed only when all succeeded.
   */
  async updateStorageVersions(serverID: string, target: UpdateTarget): Promise<boolean> {
    const done = new Set<string>();
    let failed = false;
    const live = target.liveServerIDs ? await target.liveServerIDs() : undefined;
    for (const info of this.resourceInfos()) {
      if (done.has(key(info.groupResource))) continue;
      for (const equivalent of info.equivalentResources ?? []) done.add(key(equivalent.groupResource));
      done.add(key(info.groupResource));
      if (!(await this.updateOne(serverID, info.groupResource, target.storageVersions, live))) failed = true;
    }
    if (!failed) this.completedFlag = true;
    return !failed;
  }

  /**
   * Updates one registered resource's StorageVersion only (e.g. a custom resource served after start),
   * leaving the others' untouched. The manager is completed once nothing is pending any more. True when
   * written (or no longer registered).
   */
  async updateStorageVersion(serverID: string, target: UpdateTarget, gr: GroupResource): Promise<boolean> {
    if (!this.infos.has(key(gr))) return true; // removed meanwhile (its CRD was deleted): nothing left to publish
    const live = target.liveServerIDs ? await target.liveServerIDs() : undefined;
    const updated = await this.updateOne(serverID, gr, target.storageVersions, live);
    if (updated && this.pending.size === 0) this.completedFlag = true;
    return updated;
  }

  /**
   * Writes this server's entry for one resource, retrying conflicts without limit and other errors 3 times;
   * then the resource (and its equivalents) are no longer pending. True when written or no longer registered.
   */
  private async updateOne(
    serverID: string,
    gr: GroupResource,
    client: ResourceClient<StorageVersion>,
    live: ReadonlySet<string> | undefined,
  ): Promise<boolean> {
    const delay = this.options.retryDelayMs ?? 1000;
    let attempts = 0;
    for (;;) {
      try {
        const written = await this.writeEntry(serverID, gr, client, live);
        this.lastErrors.delete(key(gr));
        if (!written) return true;
        this.options.onUpdate?.(gr, 'success');
        this.pending.delete(key(gr));
        for (const equivalent of written.equivalentResources ?? []) this.pending.delete(key(equivalent.groupResource));
        return true;
      } catch (error) {
        this.lastErrors.set(key(gr), error instanceof Error ? error.message : String(error));
        const code = StatusError.isInstance(error) ? error.code : 0;
        const conflict = code === 409;
        this.options.onUpdate?.(gr, conflict ? 'conflict' : 'error');
        if (!conflict && ++attempts >= 3) return false;
        await sleep(delay);
      }
    }
  }

  /**
   * Reads the StorageVersion (creating it when missing), then builds this server's entry from the resource's
   * info as registered now, so that an update started before a version switch never writes the old version
   * over the new one. Returns the info written, or undefined when the resource is no longer registered.
   */
  private async writeEntry(
    serverID: string,
    gr: GroupResource,
    client: ResourceClient<StorageVersion>,
    live: ReadonlySet<string> | undefined,
  ): Promise<ResourceInfo | undefined> {
    const name = storageVersionName(gr.group, gr.resource);
    let current: StorageVersion;
    try {
      current = await client.get(undefined, name);
    } catch (error) {
      if (!(StatusError.isInstance(error) && error.code === 404)) throw error;
      // Not made again for a resource removed meanwhile (its CRD deleted with its StorageVersion).
      if (!this.infos.has(key(gr))) return undefined;
      current = await client.create(undefined, {
        apiVersion: 'internal.apiserver.k8s.io/v1alpha1',
        kind: 'StorageVersion',
        metadata: { name },
        spec: {},
      });
    }
    const info = this.infos.get(key(gr));
    if (!info) return undefined;
    const entry = serverEntry(serverID, info);
    const others = (current.status?.storageVersions ?? []).filter(
      (existing) => existing.apiServerID !== entry.apiServerID && (!live || live.has(existing.apiServerID)),
    );
    const next = setCommonEncodingVersion({
      ...current,
      status: { ...current.status, storageVersions: [...others, entry] },
    });
    if (JSON.stringify(next.status) !== JSON.stringify(current.status)) await client.updateStatus(undefined, next);
    return info;
  }
}

/** This server's entry for a resource: its equivalents' versions are decodable too. */
function serverEntry(serverID: string, info: ResourceInfo): ServerStorageVersion {
  const decodable = [...info.decodableVersions];
  for (const equivalent of info.equivalentResources ?? []) {
    for (const version of equivalent.versions) if (!decodable.includes(version)) decodable.push(version);
  }
  return { apiServerID: serverID, encodingVersion: info.encodingVersion, decodableVersions: decodable, servedVersions: info.servedVersions };
}
