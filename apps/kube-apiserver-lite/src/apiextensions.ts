import { createAPIExtensionsServer, type APIExtensionsServerOptions } from '@kapi/apiextensions';
import type { ResourceClient } from '@kapi/client';
import type { GenericAPIServer, ResourceDefinition } from '@kapi/server';
import { storageVersionName, type StorageVersion, type StorageVersionManager } from '@kapi/storageversion';
import type { CustomResourceAPIServices } from './crd-apiservices.js';

/** Where custom resources' StorageVersions are published (with `--storage-version-api`). */
export interface CustomResourceStorageVersions {
  manager: StorageVersionManager;
  identity: string;
  storageVersions: () => ResourceClient<StorageVersion>;
  /**
   * The version this server encodes a custom resource in, once known: in voting mode the selected version
   * after this server's vote (writes wait behind the barrier meanwhile); default the CRD's storage version.
   */
  encodingVersion?: (definition: ResourceDefinition) => Promise<string>;
  /** The definition installed for a served custom resource (in voting mode: its converter writes in the selection). */
  servedDefinition?: (definition: ResourceDefinition) => ResourceDefinition;
}

const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/**
 * Registers a custom resource's StorageVersion (KEP-2339, which upstream never merged for CRs) and
 * publishes it in the background: the barrier answers writes to the resource with 503 until it is
 * published, reads are served meanwhile. A storage-version change goes through here again first.
 */
function publishStorageVersion(target: CustomResourceStorageVersions, definition: ResourceDefinition): void {
  const versions = definition.versions.map((version) => apiVersionOf(definition.group, version));
  const groupResource = { group: definition.group, resource: definition.resource };
  target.manager.addResourceInfo({
    groupResource,
    encodingVersion: apiVersionOf(definition.group, definition.storageVersion ?? definition.versions[0] ?? ''),
    decodableVersions: versions,
    servedVersions: versions,
  });
  const publish = async (): Promise<void> => {
    if (target.encodingVersion) {
      const version = await target.encodingVersion(definition).catch(() => undefined);
      if (version === undefined) {
        setTimeout(() => void publish(), 1000).unref();
        return;
      }
      // Still pending: the barrier opens once this version is published.
      target.manager.replaceResourceInfo({ groupResource, encodingVersion: apiVersionOf(definition.group, version), decodableVersions: versions, servedVersions: versions });
    }
    // Only this resource's StorageVersion: the others are not rewritten on every CRD install.
    const done = await target.manager
      .updateStorageVersion(target.identity, { storageVersions: target.storageVersions() }, groupResource)
      .catch(() => false);
    if (!done) setTimeout(() => void publish(), 1000).unref();
  };
  void publish();
}

/**
 * The apiextensions server kube-apiserver-lite delegates to (kube-apiserver -> apiextensions -> 404, as
 * upstream's chain): CRDs and their custom resources (their StorageVersions published before writes and
 * deleted with the CRD) on the same port, storage, scheme and health as
 * the built-ins. Filters (authentication, authorization, the storage-version barrier) run once, in the
 * outer server; `admitted` adds the admission of built-ins (namespace lifecycle, webhooks) to each CR, and
 * `apiServices` registers an APIService for each group/version the custom resources serve.
 */
export function apiExtensionsDelegate(
  options: APIExtensionsServerOptions,
  admitted: (definition: ResourceDefinition) => ResourceDefinition,
  apiServices: CustomResourceAPIServices,
  storageVersions?: CustomResourceStorageVersions,
): GenericAPIServer {
  const onServe = (served: ResourceDefinition): ResourceDefinition => {
    const definition = storageVersions?.servedDefinition?.(served) ?? served;
    apiServices.served(definition);
    if (storageVersions) publishStorageVersion(storageVersions, definition);
    // Custom resources are admitted as built-ins (namespace lifecycle, admission webhooks).
    return admitted(definition);
  };
  const onRemove = async (groupResource: { group: string; resource: string }): Promise<void> => {
    apiServices.removed(groupResource);
    if (!storageVersions) return;
    storageVersions.manager.removeResourceInfo(groupResource);
    await storageVersions
      .storageVersions()
      .delete(undefined, storageVersionName(groupResource.group, groupResource.resource))
      .catch(() => undefined);
  };
  return createAPIExtensionsServer({ ...options, hooks: { onServe, onRemove, onSynced: () => void apiServices.removeStale() } }).server;
}
