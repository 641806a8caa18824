import { StatusError, findCondition, setCondition, type Condition, type KubeObject } from '@kapi/apimachinery';
import { ResourceClient, type RestClient } from '@kapi/client';

/** The CRD condition a migration of its custom resources keeps (upstream's type and reasons). */
export const STORAGE_MIGRATING_CONDITION = 'StorageMigrating';

/** The CustomResourceDefinition fields the migrator reads and writes. */
interface CustomResourceDefinition extends KubeObject {
  spec?: { versions?: Array<{ name: string; storage?: boolean }> };
  status?: { conditions?: Condition[] | null; storedVersions?: string[] | null };
}

const crdRef = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };

/**
 * The CRD of a migrated resource through the API (`<resource>.<group>`): only groups with a dot can be
 * CRD groups; a 404 means a built-in or aggregated resource. Other errors (e.g. 403) are thrown.
 */
async function customResourceDefinition(crds: ResourceClient<CustomResourceDefinition>, group: string, resource: string) {
  if (!group.includes('.')) return undefined;
  return crds.get(undefined, `${resource}.${group}`).catch((error: unknown) => {
    if (StatusError.isInstance(error) && error.code === 404) return undefined;
    throw error;
  });
}

/** Updates a CRD's status with `mutate` (false: nothing to write), re-reading it after a 409. */
async function updateCrdStatus(
  rest: RestClient,
  group: string,
  resource: string,
  mutate: (crd: CustomResourceDefinition) => boolean,
): Promise<void> {
  const crds = new ResourceClient<CustomResourceDefinition>(rest, crdRef);
  for (;;) {
    const crd = await customResourceDefinition(crds, group, resource);
    if (!crd) return;
    const next = structuredClone(crd);
    if (!mutate(next)) return;
    try {
      await crds.updateStatus(undefined, next);
      return;
    } catch (error) {
      if (!(StatusError.isInstance(error) && error.code === 409)) throw error;
    }
  }
}

/**
 * When a migration of custom resources starts: the CRD's `StorageMigrating` condition becomes True with
 * the CRD's generation as observedGeneration, which {@link finishCustomResourceMigration} compares.
 */
export function startCustomResourceMigration(rest: RestClient, group: string, resource: string, migrationName: string): Promise<void> {
  return updateCrdStatus(rest, group, resource, (crd) => {
    const status = (crd.status ??= {});
    status.conditions = setCondition(status.conditions ?? undefined, {
      type: STORAGE_MIGRATING_CONDITION,
      status: 'True',
      reason: 'MigrationRunning',
      message: `StorageVersionMigration ${migrationName} is rewriting every object in the storage version`,
      ...(crd.metadata.generation !== undefined ? { observedGeneration: crd.metadata.generation } : {}),
    });
    return true;
  });
}

/**
 * When a migration of custom resources ends. On success every object was rewritten in the storage
 * version, so `status.storedVersions` becomes `[storage version]`, but only if the CRD's generation is
 * still the one recorded at the start (a spec change meanwhile may have changed the storage version).
 */
export function finishCustomResourceMigration(
  rest: RestClient,
  group: string,
  resource: string,
  outcome: 'Succeeded' | 'Failed',
  migrationName: string,
): Promise<void> {
  return updateCrdStatus(rest, group, resource, (crd) => {
    const running = findCondition(crd.status?.conditions ?? undefined, STORAGE_MIGRATING_CONDITION);
    if (running?.status !== 'True') return false;
    const status = (crd.status ??= {});
    const storage = crd.spec?.versions?.find((version) => version.storage)?.name;
    const unchanged = running.observedGeneration === crd.metadata.generation;
    if (outcome === 'Succeeded' && unchanged && storage) status.storedVersions = [storage];
    status.conditions = setCondition(status.conditions ?? undefined, {
      type: STORAGE_MIGRATING_CONDITION,
      status: 'False',
      reason: outcome === 'Succeeded' ? 'MigrationSucceeded' : 'MigrationFailed',
      message:
        outcome === 'Failed'
          ? `StorageVersionMigration ${migrationName} failed`
          : unchanged
            ? `StorageVersionMigration ${migrationName} succeeded; storedVersions is now [${storage ?? ''}]`
            : `StorageVersionMigration ${migrationName} succeeded, but the CRD changed meanwhile; storedVersions is kept`,
      ...(running.observedGeneration !== undefined ? { observedGeneration: running.observedGeneration } : {}),
    });
    return true;
  });
}
