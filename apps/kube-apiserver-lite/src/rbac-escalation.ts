import { StatusError, type KubeObject } from '@kapi/apimachinery';
import {
  escalationMessage,
  fullAuthorityRules,
  systemPrivilegedGroup,
  uncoveredRules,
  type Authorizer,
  type PolicyRule,
  type RoleRef,
  type UserInfo,
} from '@kapi/filters';
import type { RequestScope, ResourceDefinition, ResourceStrategy } from '@kapi/server';

const group = 'rbac.authorization.k8s.io';

/** Where the escalation checks read a user's rules and a binding's role (the RBAC authorizer). */
export interface RBACRuleResolver {
  /** Every rule that applies to the user in the namespace ("" for cluster scope), with lookup errors. */
  rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }>;
  /** The rules of a binding's role; a missing role throws 404. */
  roleReferenceRules(roleRef: RoleRef, namespace: string): Promise<PolicyRule[]>;
}

type Admit = NonNullable<ResourceStrategy['admit']>;

/** Metadata fields whose change alone never needs an escalation check (garbage collection, bookkeeping). */
const ignoredMetadata = ['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'generation'];

/** Whether an update changes only what the garbage collector mutates (upstream IsOnlyMutatingGCFields). */
function onlyGCFieldsChange(object: KubeObject, old: KubeObject): boolean {
  const comparable = (value: KubeObject) => {
    const metadata: Record<string, unknown> = { ...value.metadata };
    for (const field of ignoredMetadata) delete metadata[field];
    return JSON.stringify({ ...value, metadata });
  };
  return comparable(object) === comparable(old);
}

async function allowed(authorizer: Authorizer, user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  try {
    const result = await authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      namespace,
      apiGroup: group,
      apiVersion: '*',
      resource,
      subresource: '',
      name,
    });
    return result.decision === 'allow';
  } catch {
    return false;
  }
}

/** Throws upstream's 403 unless the user holds every rule (ConfirmNoEscalation). */
async function confirmNoEscalation(
  resolver: RBACRuleResolver,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
  refuse: (message: string) => StatusError,
  message?: string,
): Promise<void> {
  const owned = await resolver.rulesFor(user, namespace);
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length > 0) throw refuse(message ?? escalationMessage(user, missing, owned.errors));
}

/**
 * Role and ClusterRole writes (the policy-based role storage): the writer must hold every rule granted,
 * unless in `system:masters` or allowed verb `escalate` on the resource; an `aggregationRule` needs
 * every permission there is.
 */
function roleAdmission(definition: ResourceDefinition, resolver: RBACRuleResolver): Admit {
  return async (operation, object, old, scope) => {
    if (operation === 'delete' || !scope.authorizer) return;
    const user = requester(scope);
    if (old && onlyGCFieldsChange(object, old)) return;
    const name = object.metadata.name ?? '';
    const escalate = await allowed(scope.authorizer, user, 'escalate', definition.resource, scope.namespace, operation === 'create' ? '' : name);
    if (escalate) return;
    const refuse = (message: string) => StatusError.forbidden({ group, resource: definition.resource }, name, message);
    await confirmNoEscalation(resolver, user, scope.namespace, (object.rules as PolicyRule[] | undefined) ?? [], refuse);
    if (object.aggregationRule !== undefined || old?.aggregationRule !== undefined) {
      await confirmNoEscalation(resolver, user, scope.namespace, fullAuthorityRules, refuse, 'must have cluster-admin privileges to use the aggregationRule');
    }
  };
}

/**
 * RoleBinding and ClusterRoleBinding writes (the policy-based binding storage): the writer must hold
 * every rule of the referenced role, unless in `system:masters` or allowed verb `bind` on that role.
 */
function bindingAdmission(definition: ResourceDefinition, resolver: RBACRuleResolver): Admit {
  return async (operation, object, old, scope) => {
    if (operation === 'delete' || !scope.authorizer) return;
    const user = requester(scope);
    if (old && onlyGCFieldsChange(object, old)) return;
    const roleRef = object.roleRef as RoleRef;
    const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
    if (resource && (await allowed(scope.authorizer, user, 'bind', resource, scope.namespace, roleRef.name))) return;
    const rules = await resolver.roleReferenceRules(roleRef, scope.namespace);
    const name = object.metadata.name ?? '';
    await confirmNoEscalation(resolver, user, scope.namespace, rules, (message) =>
      StatusError.forbidden({ group, resource: definition.resource }, name, message),
    );
  };
}

/** The request's user; a write without one is refused, as upstream's "no user on context". */
function requester(scope: RequestScope): UserInfo {
  if (!scope.user) throw StatusError.forbidden({ group, resource: '' }, '', 'no user on context');
  return scope.user;
}

/**
 * The RBAC resources with upstream's escalation prevention in front of their admission: members of
 * `system:masters` pass; other writers of roles need their rules (or `escalate`), writers of bindings
 * need the bound role's rules (or `bind`). Checks use the server's one authorizer (`RequestScope.authorizer`)
 * and are off when the server runs without authorization. Other definitions are returned unchanged.
 */
export function withRBACEscalationChecks(definitions: readonly ResourceDefinition[], resolver: RBACRuleResolver): ResourceDefinition[] {
  return definitions.map((definition) => {
    if (definition.group !== group) return definition;
    const isRole = definition.resource === 'roles' || definition.resource === 'clusterroles';
    const isBinding = definition.resource === 'rolebindings' || definition.resource === 'clusterrolebindings';
    if (!isRole && !isBinding) return definition;
    const check = isRole ? roleAdmission(definition, resolver) : bindingAdmission(definition, resolver);
    const inner = definition.strategy?.admit;
    const admit: Admit = async (operation, object, old, scope) => {
      if (!scope.user?.groups.includes(systemPrivilegedGroup)) await check(operation, object, old, scope);
      await inner?.(operation, object, old, scope);
    };
    return { ...definition, strategy: { ...definition.strategy, admit } };
  });
}
