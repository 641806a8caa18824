import type { ClusterRole, ClusterRoleBinding, RBACRuleSource, Role, RoleBinding } from '@kapi/filters';
import type { Interface } from '@kapi/storage';
import { WatchedObjects } from '@kapi/storage';

/** The storage (and key prefix) of one RBAC resource. */
export interface RBACStorage {
  storage: Interface;
  prefix: string;
}


/** The storages of the four RBAC resources. */
export interface RBACStorages {
  roles: RBACStorage;
  clusterRoles: RBACStorage;
  roleBindings: RBACStorage;
  clusterRoleBindings: RBACStorage;
}

/**
 * RBACRuleSource over the server's own storage, cached in memory and kept current by watches. The
 * storages are looked up on `start()` (they exist once the resources are installed); before that the
 * cache is empty, so RBAC grants nothing.
 */
export class RBACCache implements RBACRuleSource {
  private roles: WatchedObjects | undefined;
  private clusterRoles: WatchedObjects | undefined;
  private roleBindings: WatchedObjects | undefined;
  private clusterRoleBindings: WatchedObjects | undefined;

  constructor(private readonly storages: () => RBACStorages) {}

  private all(): WatchedObjects[] {
    return [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings].filter(
      (cache): cache is WatchedObjects => cache !== undefined,
    );
  }

  /** Starts the watches; resolves when every cache listed once. */
  async start(): Promise<void> {
    const storages = this.storages();
    this.roles = new WatchedObjects(storages.roles);
    this.clusterRoles = new WatchedObjects(storages.clusterRoles);
    this.roleBindings = new WatchedObjects(storages.roleBindings);
    this.clusterRoleBindings = new WatchedObjects(storages.clusterRoleBindings);
    for (const cache of this.all()) cache.start();
    await Promise.all(this.all().map((cache) => cache.ready));
  }

  stop(): void {
    for (const cache of this.all()) cache.stop();
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles?.objects.get(`${namespace}/${name}`) as Role | undefined;
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles?.objects.get(`/${name}`) as ClusterRole | undefined;
  }

  listRoleBindings(namespace: string): RoleBinding[] {
    return [...(this.roleBindings?.objects.values() ?? [])].filter((b) => b.metadata.namespace === namespace) as unknown as RoleBinding[];
  }

  listClusterRoleBindings(): ClusterRoleBinding[] {
    return [...(this.clusterRoleBindings?.objects.values() ?? [])] as unknown as ClusterRoleBinding[];
  }
}
