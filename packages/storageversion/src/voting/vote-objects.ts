import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { ResourceClient } from '@kapi/client';
import { StorageError, type Interface } from '@kapi/storage';
import { isStorageVersionVote, type StorageVersionVote } from './storage-version-vote-api.js';

/**
 * Where a {@link StorageVersionVoter} reads and writes vote objects. The app implements it over the REST
 * client ({@link voteObjectsFromClient}); bootstrapping code and tests can use storage directly
 * ({@link voteObjectsFromStorage}).
 *
 * `create` of an existing object and `update` with a stale `metadata.resourceVersion` must throw an error
 * that {@link isVoteConflict} recognises (a 409 StatusError, or a KeyExists / ResourceVersionConflict
 * StorageError).
 */
export interface VoteObjects {
  /** The vote object, or undefined when it does not exist. */
  get(name: string): Promise<StorageVersionVote | undefined>;
  /** Creates the object; throws a conflict when it exists. */
  create(object: StorageVersionVote): Promise<StorageVersionVote>;
  /** Replaces the object if its resourceVersion is still `object.metadata.resourceVersion`; else throws a conflict. */
  update(object: StorageVersionVote): Promise<StorageVersionVote>;
  /** Every vote object. */
  list(): Promise<StorageVersionVote[]>;
  /** Deletes the object if its resourceVersion is still `resourceVersion`; else throws a conflict. Missing: no error. */
  delete(name: string, resourceVersion: string): Promise<void>;
}

/** True for the errors {@link VoteObjects} report when another apiserver wrote first. */
export function isVoteConflict(error: unknown): boolean {
  if (StatusError.isInstance(error)) return error.code === 409;
  if (StorageError.isInstance(error)) return error.code === 'KeyExists' || error.code === 'ResourceVersionConflict';
  return false;
}

function asVote(object: KubeObject): StorageVersionVote {
  if (!isStorageVersionVote(object)) {
    throw StorageError.corruptObject(object.metadata.name ?? '', 'object is not a storage version vote');
  }
  return object;
}

/** {@link VoteObjects} over the REST client of `kube-apiserver.internal.k8s.io/v1alpha1` storageversions. */
export function voteObjectsFromClient(client: ResourceClient<StorageVersionVote>): VoteObjects {
  return {
    async get(name) {
      try {
        return await client.get(undefined, name);
      } catch (error) {
        if (StatusError.isInstance(error) && error.code === 404) return undefined;
        throw error;
      }
    },
    create: (object) => client.create(undefined, object),
    update: (object) => client.update(undefined, object),
    list: async () => (await client.list()).items,
    async delete(name, resourceVersion) {
      try {
        await client.delete(undefined, name, { preconditions: { resourceVersion } });
      } catch (error) {
        if (!(StatusError.isInstance(error) && error.code === 404)) throw error;
      }
    },
  };
}

/**
 * {@link VoteObjects} over a storage {@link Interface}; objects live at `<prefix>/<name>` (prefix default
 * `/kube-apiserver.internal.k8s.io/storageversions`, the resource's storage prefix).
 */
export function voteObjectsFromStorage(
  storage: Interface,
  prefix = '/kube-apiserver.internal.k8s.io/storageversions',
): VoteObjects {
  const keyOf = (name: string): string => `${prefix.replace(/\/+$/, '')}/${name}`;
  return {
    async get(name) {
      const object = await storage.get(keyOf(name), { ignoreNotFound: true });
      return object ? asVote(object) : undefined;
    },
    async create(object) {
      const { resourceVersion: _ignored, ...metadata } = object.metadata;
      return asVote(await storage.create(keyOf(object.metadata.name ?? ''), { ...object, metadata }));
    },
    async update(object) {
      const key = keyOf(object.metadata.name ?? '');
      const expected = object.metadata.resourceVersion ?? '';
      const updated = await storage.guaranteedUpdate(key, {
        tryUpdate: (current) => {
          if (current.metadata.resourceVersion !== expected) {
            throw StorageError.conflict(
              key,
              Number(current.metadata.resourceVersion ?? 0),
              'the object has been modified; please apply your changes to the latest version and try again',
            );
          }
          return object;
        },
      });
      return asVote(updated);
    },
    async list() {
      const list = await storage.getList(`${prefix.replace(/\/+$/, '')}/`, { recursive: true });
      return list.items.map(asVote);
    },
    async delete(name, resourceVersion) {
      try {
        await storage.delete(keyOf(name), {
          validateDeletion: (current) => {
            if (current.metadata.resourceVersion !== resourceVersion) {
              throw StorageError.conflict(keyOf(name), Number(current.metadata.resourceVersion ?? 0), 'the object has been modified');
            }
          },
        });
      } catch (error) {
        if (!(StorageError.isInstance(error) && error.code === 'KeyNotFound')) throw error;
      }
    },
  };
}
