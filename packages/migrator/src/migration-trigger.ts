import { StatusError, storageVersionHash, type KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type RestClient } from '@kapi/client';
import { discoverResource } from './discovery.js';
import { isFinished, migrationClient } from './migration-runner.js';
import { MIGRATION_GROUP, MIGRATION_VERSION, UNKNOWN_STORAGE_VERSION_HASH, storageStateName, type StorageState } from './storage-state-api.js';
import { MIGRATION_SUCCEEDED, type StorageVersionMigration } from './storage-version-migration-api.js';

/** The KEP-2339 StorageVersion fields the trigger reads. */
interface StorageVersionObject extends KubeObject {
  status?: { commonEncodingVersion?: string };
}

/** How long a migration this trigger created may stay unseen by its informer before it is no longer waited for. */
const createdUnseenMs = 30_000;

/** Annotations the trigger puts on the migrations it creates. */
export const TRIGGER_ENCODING_VERSION_ANNOTATION = 'migration.kapi.dev/encoding-version';
export const TRIGGER_STORAGE_VERSION_RV_ANNOTATION = 'migration.kapi.dev/storage-version-resource-version';
const TRIGGER_LABEL = 'migration.kapi.dev/triggered-by';

/** Options of a {@link MigrationTrigger}. */
export interface MigrationTriggerOptions {
  rest: RestClient;
  log?(message: string): void;
}

const storageVersionsRef = { group: 'internal.apiserver.k8s.io', version: 'v1alpha1', resource: 'storageversions', namespaced: false };
const storageStatesRef = { group: MIGRATION_GROUP, version: MIGRATION_VERSION, resource: 'storagestates', namespaced: false };

/** `<group>.<resource>` (`core.<resource>` for the core group) back into its parts. */
function parseStorageVersionName(name: string): { group: string; resource: string } | undefined {
  // Groups have dots (`example.com.widgets`), resources none: the name splits at its last dot, as upstream's.
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const group = name.slice(0, dot);
  return { group: group === 'core' ? '' : group, resource: name.slice(dot + 1) };
}

/**
 * Starts migrations when a resource's storage version changes (KEP-2339 consumer rules): when a
 * StorageVersion's `commonEncodingVersion` is set and its hash is not the only one StorageState lists as
 * persisted, it creates a StorageVersionMigration; while `commonEncodingVersion` is empty (servers
 * disagree) it starts none and deletes an unfinished one it started. When a migration succeeds and the
 * StorageVersion did not change meanwhile, StorageState's persisted hashes become `[current]`; if it did
 * change, it migrates again. Events are handled one at a time.
 */
export class MigrationTrigger {
  private readonly storageVersionInformer: Informer;
  private readonly migrationInformer: Informer;
  private readonly storageVersions: ResourceClient<StorageVersionObject>;
  private readonly storageStates: ResourceClient<StorageState>;
  private readonly migrations: ResourceClient<StorageVersionMigration>;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Per StorageVersion name: the migration this trigger last created, until its informer shows it. */
  private readonly created = new Map<string, { name: string; at: number }>();

  constructor(private readonly options: MigrationTriggerOptions) {
    this.storageVersions = new ResourceClient<StorageVersionObject>(options.rest, storageVersionsRef);
    this.storageStates = new ResourceClient<StorageState>(options.rest, storageStatesRef);
    this.migrations = migrationClient(options.rest);
    this.storageVersionInformer = new Informer(this.storageVersions, { retryDelayMs: 500 });
    this.migrationInformer = new Informer(this.migrations, { retryDelayMs: 500, labelSelector: TRIGGER_LABEL });
    const onStorageVersion = (object: KubeObject) => this.enqueue(object.metadata.name ?? '');
    this.storageVersionInformer.addEventHandler({ onAdd: onStorageVersion, onUpdate: (_old, object) => onStorageVersion(object) });
    const onMigration = (object: KubeObject) => {
      const spec = (object as StorageVersionMigration).spec?.resource;
      if (spec && isFinished(object as StorageVersionMigration)) this.enqueue(`${spec.group || 'core'}.${spec.resource ?? ''}`);
    };
    this.migrationInformer.addEventHandler({ onAdd: onMigration, onUpdate: (_old, object) => onMigration(object) });
  }

  /** Starts watching StorageVersions and the migrations this trigger created. */
  async start(): Promise<void> {
    this.migrationInformer.start();
    await this.migrationInformer.waitForSync();
    this.storageVersionInformer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.storageVersionInformer.stop(), this.migrationInformer.stop()]);
    await this.queue;
  }

  private enqueue(name: string): void {
    this.queue = this.queue
      .then(() => (this.stopped ? undefined : this.reconcile(name)))
      .catch((error: unknown) => this.options.log?.(`migration trigger: ${name}: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async reconcile(name: string): Promise<void> {
    const groupResource = parseStorageVersionName(name);
    if (!groupResource) return;
    const { group, resource } = groupResource;
    const storageVersion = this.storageVersionInformer.indexer.get(name) as StorageVersionObject | undefined;
    const ours = (this.migrationInformer.indexer.list() as StorageVersionMigration[]).filter(
      (migration) => migration.spec?.resource?.resource === resource && (migration.spec.resource.group ?? '') === group,
    );
    // A migration this trigger created that the informer has not shown yet counts as unfinished: a second
    // event for the resource in between must not create another.
    // (Bounded in time: one deleted before the informer ever showed it must not block the resource.)
    const pending = this.created.get(name);
    const unseen = pending && Date.now() - pending.at < createdUnseenMs && !ours.some((migration) => migration.metadata.name === pending.name);
    if (unseen) return;
    this.created.delete(name);
    const unfinished = ours.filter((migration) => !isFinished(migration));
    const encodingVersion = storageVersion?.status?.commonEncodingVersion;
    if (!storageVersion || !encodingVersion) {
      // Servers disagree: a migration now could be undone by a server still writing the old version.
      for (const migration of unfinished) {
        this.options.log?.(`migration trigger: ${name} has no common encoding version; aborting ${migration.metadata.name ?? ''}`);
        await this.migrations.delete(undefined, migration.metadata.name ?? '').catch(ignoreNotFound);
      }
      return;
    }
    const discovered = await discoverResource(this.options.rest, group, resource);
    if (!discovered) return;
    const version = encodingVersion.includes('/') ? encodingVersion.slice(encodingVersion.indexOf('/') + 1) : encodingVersion;
    const hash = storageVersionHash(group, version, discovered.kind);
    const state = await this.ensureStorageState(group, resource, hash);
    const persisted = state.status?.persistedStorageVersionHashes ?? [];
    if (persisted.length === 1 && persisted[0] === hash) return;
    if (unfinished.length > 0) return;

    const latest = ours
      .filter((migration) => migration.metadata.annotations?.[TRIGGER_ENCODING_VERSION_ANNOTATION] === encodingVersion)
      .sort((left, right) => (right.metadata.creationTimestamp ?? '').localeCompare(left.metadata.creationTimestamp ?? ''))[0];
    const succeeded = latest?.status?.conditions?.some((condition) => condition.type === MIGRATION_SUCCEEDED && condition.status === 'True');
    if (latest && succeeded && latest.metadata.annotations?.[TRIGGER_STORAGE_VERSION_RV_ANNOTATION] === storageVersion.metadata.resourceVersion) {
      await this.updateStorageState(state, (status) => {
        status.persistedStorageVersionHashes = [hash];
      });
      this.options.log?.(`migration trigger: ${name} is stored as ${encodingVersion} only`);
      return;
    }
    if (latest && !succeeded) return; // Failed: an operator looks at it (or deletes it to retry).
    const created = await this.migrations.create(undefined, {
      apiVersion: 'storagemigration.k8s.io/v1beta1',
      kind: 'StorageVersionMigration',
      metadata: {
        generateName: `${resource}.${group || 'core'}-`,
        labels: { [TRIGGER_LABEL]: 'storage-version-trigger' },
        annotations: {
          [TRIGGER_ENCODING_VERSION_ANNOTATION]: encodingVersion,
          [TRIGGER_STORAGE_VERSION_RV_ANNOTATION]: storageVersion.metadata.resourceVersion ?? '',
        },
      },
      spec: { resource: { group, resource } },
    });
    if (created.metadata.name) this.created.set(name, { name: created.metadata.name, at: Date.now() });
    this.options.log?.(`migration trigger: ${name} is now encoded as ${encodingVersion}; started ${created.metadata.name ?? ''}`);
  }

  private async ensureStorageState(group: string, resource: string, hash: string): Promise<StorageState> {
    const name = storageStateName(group, resource);
    let state = await this.storageStates.get(undefined, name).catch((error: unknown) => {
      if (StatusError.isInstance(error) && error.code === 404) return undefined;
      throw error;
    });
    state ??= await this.storageStates.create(undefined, {
      apiVersion: `${MIGRATION_GROUP}/${MIGRATION_VERSION}`,
      kind: 'StorageState',
      metadata: { name },
      spec: { resource: { group, resource } },
    });
    if (state.status?.currentStorageVersionHash === hash && state.status.persistedStorageVersionHashes?.length) return state;
    return this.updateStorageState(state, (status) => {
      const persisted = status.persistedStorageVersionHashes ?? [];
      status.persistedStorageVersionHashes = persisted.length === 0 ? [UNKNOWN_STORAGE_VERSION_HASH] : persisted.includes(hash) ? persisted : [...persisted, hash];
      status.currentStorageVersionHash = hash;
    });
  }

  private async updateStorageState(state: StorageState, mutate: (status: NonNullable<StorageState['status']>) => void): Promise<StorageState> {
    const next: StorageState = { ...state, status: structuredClone(state.status ?? {}) };
    mutate(next.status as NonNullable<StorageState['status']>);
    (next.status as NonNullable<StorageState['status']>).lastHeartbeatTime = `${new Date().toISOString().slice(0, 19)}Z`;
    return this.storageStates.updateStatus(undefined, next);
  }
}

function ignoreNotFound(error: unknown): void {
  if (!(StatusError.isInstance(error) && error.code === 404)) throw error;
}
