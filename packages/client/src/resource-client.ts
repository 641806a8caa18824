import type { KubeList, KubeObject } from '@kapi/apimachinery';
import type { RestClient } from './rest-client.js';
import type { WatchStream } from './watch-stream.js';

/** Identifies a resource for {@link ResourceClient}. */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural name, e.g. `configmaps`. */
  resource: string;
  namespaced: boolean;
}

/** Query options of list and watch. */
export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/** Options of writes. */
export interface WriteQuery {
  dryRun?: 'All';
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  fieldManager?: string;
}

/** The patch content types the apiserver accepts. */
export type PatchType = 'application/merge-patch+json' | 'application/json-patch+json' | 'application/strategic-merge-patch+json';

/** Options of a {@link ResourceClient}. */
export interface ResourceClientOptions {
  /**
   * List and watch return metadata only (`PartialObjectMetadataList` / `PartialObjectMetadata` of
   * meta.k8s.io/v1, as client-go's metadata client asks for them): for informers that need no more than
   * names, owners and finalizers, such as a garbage collector, at a fraction of the bytes and memory.
   */
  metadataOnly?: boolean;
}

const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataWatchAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** CRUD, patch and watch for one resource, namespaced or not. */
export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly rest: RestClient,
    readonly ref: ResourceRef,
    private readonly options: ResourceClientOptions = {},
  ) {}

  /** Collection path; `namespace` undefined or '' lists across all namespaces. */
  collectionPath(namespace?: string): string {
    const base = this.ref.group === '' ? `/api/${this.ref.version}` : `/apis/${this.ref.group}/${this.ref.version}`;
    const scope = this.ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${base}${scope}/${this.ref.resource}`;
  }

  private itemPath(namespace: string | undefined, name: string, subresource?: string): string {
    return `${this.collectionPath(namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  }

  get(namespace: string | undefined, name: string, query: { resourceVersion?: string } = {}): Promise<T> {
    return this.rest.request<T>({ method: 'GET', path: this.itemPath(namespace, name), query: { ...query } });
  }

  list(namespace?: string, query: ListQuery = {}): Promise<KubeList<T>> {
    const accept = this.options.metadataOnly ? { accept: metadataListAccept } : {};
    return this.rest.request<KubeList<T>>({ method: 'GET', path: this.collectionPath(namespace), query: { ...query }, ...accept });
  }

  create(namespace: string | undefined, object: T, query: WriteQuery = {}): Promise<T> {
    return this.rest.request<T>({ method: 'POST', path: this.collectionPath(namespace), body: object, query: { ...query } });
  }

  update(namespace: string | undefined, object: T, query: WriteQuery = {}): Promise<T> {
    const name = object.metadata.name ?? '';
    return this.rest.request<T>({ method: 'PUT', path: this.itemPath(namespace, name), body: object, query: { ...query } });
  }

  updateStatus(namespace: string | undefined, object: T, query: WriteQuery = {}): Promise<T> {
    const name = object.metadata.name ?? '';
    return this.rest.request<T>({
      method: 'PUT',
      path: this.itemPath(namespace, name, 'status'),
      body: object,
      query: { ...query },
    });
  }

  patch(namespace: string | undefined, name: string, patch: unknown, type: PatchType, query: WriteQuery = {}): Promise<T> {
    return this.rest.request<T>({
      method: 'PATCH',
      path: this.itemPath(namespace, name),
      body: patch,
      contentType: type,
      query: { ...query },
    });
  }

  delete(
    namespace: string | undefined,
    name: string,
    options: { preconditions?: { uid?: string; resourceVersion?: string }; propagationPolicy?: string } = {},
  ): Promise<unknown> {
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', ...options };
    return this.rest.request({ method: 'DELETE', path: this.itemPath(namespace, name), body });
  }

  watch(namespace?: string, query: ListQuery = {}, signal?: AbortSignal): Promise<WatchStream<T>> {
    const accept = this.options.metadataOnly ? { accept: metadataWatchAccept } : {};
    return this.rest.watch<T>({ path: this.collectionPath(namespace), query: { ...query }, ...accept, ...(signal ? { signal } : {}) });
  }
}
