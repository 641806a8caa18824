import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter } from '@kapi/filters';
import { STORAGE_VERSION_GROUP } from './storage-version-api.js';

/** What the write barrier needs from the manager. */
export interface StorageVersionGate {
  completed(): boolean;
  isPending(gr: { group: string; resource: string }): boolean;
  lastError(gr: { group: string; resource: string }): string;
}

const readVerbs = new Set(['get', 'list', 'watch']);

/**
 * The storage-version write barrier (upstream WithStorageVersionPrecondition), innermost after authorization:
 * until the manager completed, writes to pending resources get 503
 * `wait for storage version registration to complete for resource: <gr>, last seen error: <err>`.
 * Exempt, in upstream's order: non-resource requests, get/list/watch, storageversions, namespace creation by
 * system:apiserver in system:masters, leases in kube-system, and resources that are not pending.
 */
export function withStorageVersionPrecondition(gate: StorageVersionGate): Filter {
  return (next) => (request, response) => {
    if (gate.completed()) return next(request, response);
    const context = requestContext(request);
    const info = context.requestInfo;
    if (!info) {
      writeStatus(response, StatusError.internal('no RequestInfo found in the context'));
      return;
    }
    if (!info.isResourceRequest || readVerbs.has(info.verb)) return next(request, response);
    if (info.apiGroup === STORAGE_VERSION_GROUP && info.resource === 'storageversions') return next(request, response);
    const user = context.user;
    if (
      info.apiGroup === '' &&
      info.resource === 'namespaces' &&
      info.verb === 'create' &&
      user?.name === 'system:apiserver' &&
      user.groups.includes('system:masters')
    ) {
      return next(request, response);
    }
    if (info.apiGroup === 'coordination.k8s.io' && info.resource === 'leases' && info.namespace === 'kube-system') {
      return next(request, response);
    }
    const gr = { group: info.apiGroup, resource: info.resource };
    if (!gate.isPending(gr)) return next(request, response);
    const grText = gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
    writeStatus(
      response,
      StatusError.serviceUnavailable(
        `wait for storage version registration to complete for resource: ${grText}, last seen error: ${gate.lastError(gr)}`,
      ),
    );
  };
}
