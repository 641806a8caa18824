/** The rbac.authorization.k8s.io/v1 shapes the RBAC authorizer reads (plain objects, as stored). */

/** One permission: verbs on resources (or on non-resource URLs). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Who a binding grants to. `kind` is User, Group or ServiceAccount. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** The role a binding points at. `kind` is Role or ClusterRole. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

interface RBACObjectMeta {
  name: string;
  namespace?: string;
  [key: string]: unknown;
}

export interface Role {
  apiVersion?: string;
  kind?: string;
  metadata: RBACObjectMeta;
  rules?: PolicyRule[];
}

export interface ClusterRole {
  apiVersion?: string;
  kind?: string;
  metadata: RBACObjectMeta;
  rules?: PolicyRule[];
  aggregationRule?: unknown;
}

export interface RoleBinding {
  apiVersion?: string;
  kind?: string;
  metadata: RBACObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface ClusterRoleBinding {
  apiVersion?: string;
  kind?: string;
  metadata: RBACObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** A value or a promise of it (rule sources may be in-memory or read storage). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Where the RBAC authorizer reads roles and bindings (the server implements it over its storage or
 * informers). Missing roles are `undefined`.
 */
export interface RBACRuleSource {
  getRole(namespace: string, name: string): MaybePromise<Role | undefined>;
  getClusterRole(name: string): MaybePromise<ClusterRole | undefined>;
  listRoleBindings(namespace: string): MaybePromise<readonly RoleBinding[]>;
  listClusterRoleBindings(): MaybePromise<readonly ClusterRoleBinding[]>;
}
