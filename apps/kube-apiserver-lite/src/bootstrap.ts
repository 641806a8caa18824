import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { ResourceClient, type RestClient } from '@kapi/client';
import { bootstrapRbacObjects } from './resources/index.js';
import { SYSTEM_NAMESPACES } from './namespace-lifecycle.js';
import { storageVersionMigratorRbacObjects } from './storage-version-migrator-rbac.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates an object through the API unless it exists, retrying while the server is not ready for it
 * (e.g. 503 from the storage-version write barrier, or 429 while a cache initialises).
 */
export async function ensureObject(client: ResourceClient, namespace: string | undefined, object: KubeObject, signal?: AbortSignal): Promise<void> {
  await whileStarting(async () => {
    try {
      await client.create(namespace, object);
    } catch (error) {
      if (!(StatusError.isInstance(error) && error.code === 409)) throw error;
    }
  }, signal);
}

/**
 * Runs `write` until it succeeds, again after "not ready yet" answers only (write barrier 503,
 * initialising cache 429, timeouts), as a post-start hook's writes meet them while the server starts.
 */
export async function whileStarting<T>(write: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const retryable = !StatusError.isInstance(error) || [429, 500, 503, 504].includes(error.code);
      if (!retryable || signal?.aborted) throw error;
      await sleep(200);
    }
  }
}

/** Post-start hook `start-system-namespaces-controller`: default, kube-system, kube-public, kube-node-lease. */
export async function createSystemNamespaces(rest: RestClient, signal?: AbortSignal): Promise<void> {
  const namespaces = new ResourceClient(rest, { group: '', version: 'v1', resource: 'namespaces', namespaced: false });
  for (const name of SYSTEM_NAMESPACES) {
    await ensureObject(namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, signal);
  }
}

/** Post-start hook `rbac/bootstrap-roles`: the default cluster roles and bindings (and the storage version migrator's). */
export async function createBootstrapRbac(rest: RestClient, signal?: AbortSignal): Promise<void> {
  const defaults = bootstrapRbacObjects();
  const migrator = storageVersionMigratorRbacObjects();
  const clusterRoles = [...defaults.clusterRoles, ...migrator.clusterRoles];
  const clusterRoleBindings = [...defaults.clusterRoleBindings, ...migrator.clusterRoleBindings];
  const roles = new ResourceClient(rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false });
  const bindings = new ResourceClient(rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', namespaced: false });
  for (const role of clusterRoles) await ensureObject(roles, undefined, role, signal);
  for (const binding of clusterRoleBindings) await ensureObject(bindings, undefined, binding, signal);
}
