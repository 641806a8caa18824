import type { GroupResource } from '@kapi/apimachinery';
import type { Codec, Interface } from '@kapi/storage';
import type { ResourceDefinition } from './resource-definition.js';

/** What the server hands the storage factory for each installed resource. */
export interface StorageFactoryRequest {
  groupResource: GroupResource;
  /** The resource's key prefix, e.g. `/registry/widgets` (objects live below `<prefix>/`). */
  prefix: string;
  /** Encodes hub objects in the storage version and decodes any decodable version back to the hub. */
  codec: Codec;
  definition: ResourceDefinition;
}

/** Gives the storage a resource is served from (one Store per resource, possibly one shared backend). */
export type StorageFactory = (resource: StorageFactoryRequest) => Interface;
