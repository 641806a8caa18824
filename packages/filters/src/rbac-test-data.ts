/** Test-only: a small in-memory RBAC rule source with real-shaped rbac.authorization.k8s.io/v1 objects. */
import type {
  ClusterRole,
  ClusterRoleBinding,
  RBACRuleSource,
  Role,
  RoleBinding,
  Subject,
} from './rbac-types.js';

const apiVersion = 'rbac.authorization.k8s.io/v1';
const rbacGroup = 'rbac.authorization.k8s.io';

export class InMemoryRBACRules implements RBACRuleSource {
  roles: Role[] = [];
  clusterRoles: ClusterRole[] = [];
  roleBindings: RoleBinding[] = [];
  clusterRoleBindings: ClusterRoleBinding[] = [];

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.find((role) => role.metadata.namespace === namespace && role.metadata.name === name);
  }
  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.find((role) => role.metadata.name === name);
  }
  async listRoleBindings(namespace: string): Promise<RoleBinding[]> {
    return this.roleBindings.filter((binding) => binding.metadata.namespace === namespace);
  }
  async listClusterRoleBindings(): Promise<ClusterRoleBinding[]> {
    return this.clusterRoleBindings;
  }

  addRole(namespace: string, name: string, rules: Role['rules']): this {
    this.roles.push({ apiVersion, kind: 'Role', metadata: { name, namespace }, rules: rules ?? [] });
    return this;
  }
  addClusterRole(name: string, rules: ClusterRole['rules']): this {
    this.clusterRoles.push({ apiVersion, kind: 'ClusterRole', metadata: { name }, rules: rules ?? [] });
    return this;
  }
  bindRole(
    namespace: string,
    name: string,
    roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
    subjects: Subject[],
  ): this {
    this.roleBindings.push({
      apiVersion,
      kind: 'RoleBinding',
      metadata: { name, namespace },
      subjects,
      roleRef: { apiGroup: rbacGroup, ...roleRef },
    });
    return this;
  }
  bindClusterRole(name: string, clusterRole: string, subjects: Subject[]): this {
    this.clusterRoleBindings.push({
      apiVersion,
      kind: 'ClusterRoleBinding',
      metadata: { name },
      subjects,
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: clusterRole },
    });
    return this;
  }
}

export const user = (name: string): Subject => ({ kind: 'User', apiGroup: rbacGroup, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: rbacGroup, name });
export const serviceAccount = (name: string, namespace?: string): Subject =>
  namespace === undefined ? { kind: 'ServiceAccount', name } : { kind: 'ServiceAccount', name, namespace };
