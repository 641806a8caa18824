import { RestClient, sleep, type RestConfig, type RestRequest, type RestResponse } from '@kapi/client';
import type { StorageVersionGate } from '@kapi/storageversion';

/** The group, resource and namespace a request path names (`/api/v1/...`, `/apis/<group>/<version>/...`). */
function resourceOf(path: string): { group: string; resource: string; namespace?: string; collection: boolean } | undefined {
  const segments = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  const [root, first] = segments;
  let group: string;
  let rest: string[];
  if (root === 'api') [group, rest] = ['', segments.slice(2)];
  else if (root === 'apis' && first !== undefined) [group, rest] = [first, segments.slice(3)];
  else return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const [, namespace = '', resource = '', name] = rest;
    return { group, resource, namespace, collection: name === undefined };
  }
  const [resource, name] = rest;
  return resource === undefined ? undefined : { group, resource, collection: name === undefined };
}

/**
 * What the write barrier lets through before it opens (as `withStorageVersionPrecondition`): the
 * StorageVersions themselves, leases in kube-system (identity leases) and namespace creation by this
 * server, which publishing the StorageVersions needs.
 */
function exempt(target: { group: string; resource: string; namespace?: string; collection: boolean }, method: string): boolean {
  if (target.group === 'internal.apiserver.k8s.io' && target.resource === 'storageversions') return true;
  if (target.group === 'coordination.k8s.io' && target.resource === 'leases' && target.namespace === 'kube-system') return true;
  return target.group === '' && target.resource === 'namespaces' && target.collection && method === 'POST';
}

/**
 * The loopback client of kube-apiserver-lite's own controllers (bootstrap RBAC, system namespaces,
 * APIServices, the migration trigger...), which start while the storage-version barrier still holds
 * writes. A write to a resource whose StorageVersion is not published yet waits here for the barrier to
 * let it through, instead of being sent to be answered 503 (and logged, and retried, on every start).
 * After `maxWaitMs` (or once the request's signal aborts) it is sent anyway, so a barrier that does not
 * open still shows in the log.
 */
export class LoopbackClient extends RestClient {
  constructor(
    config: RestConfig,
    private readonly gate: StorageVersionGate | undefined,
    private readonly maxWaitMs = 30_000,
  ) {
    super(config);
  }

  override async raw(request: RestRequest): Promise<RestResponse> {
    const gate = this.gate;
    if (gate && !gate.completed() && request.method !== 'GET') {
      const target = resourceOf(request.path);
      if (target && !exempt(target, request.method)) {
        const deadline = Date.now() + this.maxWaitMs;
        const waiting = () => !gate.completed() && gate.isPending(target) && Date.now() < deadline && !request.signal?.aborted;
        while (waiting()) await sleep(50);
      }
    }
    return super.raw(request);
  }
}
