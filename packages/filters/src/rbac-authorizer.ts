import { StatusError } from '@kapi/apimachinery';
import type { UserInfo } from './handler.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorizer.js';
import type { PolicyRule, RBACRuleSource, RoleRef, Subject } from './rbac-types.js';

const serviceAccountPrefix = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`, the user name of a service account. */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `${serviceAccountPrefix}${namespace}:${name}`;
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((ruleVerb) => ruleVerb === '*' || ruleVerb === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === '*' || ruleGroup === group);
}

/** `*`, exact `resource` or `resource/subresource`, or `*\/subresource`. */
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const ruleResource of rule.resources ?? []) {
    if (ruleResource === '*' || ruleResource === combinedResource) return true;
    if (subresource && ruleResource === `*/${subresource}`) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, exact, or a prefix ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule grants the request (rbac RuleAllows). */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attributes.isResourceRequest) {
    const combined = attributes.subresource
      ? `${attributes.resource}/${attributes.subresource}`
      : attributes.resource;
    return (
      verbMatches(rule, attributes.verb) &&
      apiGroupMatches(rule, attributes.apiGroup) &&
      resourceMatches(rule, combined, attributes.subresource) &&
      resourceNameMatches(rule, attributes.name)
    );
  }
  return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
}

/** Whether a binding subject names the user; a ServiceAccount without namespace takes the binding's. */
export function subjectMatchesUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      if (!namespace) return false;
      return user.name === serviceAccountUserName(namespace, subject.name);
    }
    default:
      return false;
  }
}

/** Options of {@link RBACAuthorizer}. */
export interface RBACAuthorizerOptions {
  /** Groups always allowed; default `system:masters`. Pass `[]` to rely on RBAC rules only. */
  privilegedGroups?: readonly string[];
}

/**
 * `--authorization-mode=RBAC`: allows a request when a rule of a role bound to the user grants it.
 * ClusterRoleBindings apply everywhere; RoleBindings in the request's namespace apply there, to a
 * Role of that namespace or to a ClusterRole scoped to it. Nothing found is `noOpinion` (denied at
 * the end), with the lookup errors, if any, as the reason.
 */
export class RBACAuthorizer implements Authorizer {
  private readonly source: RBACRuleSource;
  private readonly privilegedGroups: ReadonlySet<string>;

  constructor(source: RBACRuleSource, options: RBACAuthorizerOptions = {}) {
    this.source = source;
    this.privilegedGroups = new Set(options.privilegedGroups ?? ['system:masters']);
  }

  async authorize(attributes: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const user = attributes.user;
    if (!user) return { decision: 'noOpinion' };
    if (user.groups.some((group) => this.privilegedGroups.has(group))) return { decision: 'allow' };
    const errors: string[] = [];
    let allowedBy: string | undefined;
    await this.visitRules(user, attributes.namespace, errors, (rule, source) => {
      if (!ruleAllows(attributes, rule)) return false;
      allowedBy = source;
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
    return errors.length > 0
      ? { decision: 'noOpinion', reason: `RBAC: ${aggregate(errors)}` }
      : { decision: 'noOpinion' };
  }

  /** All rules that apply to the user in the namespace ("" for cluster scope), for rules reviews. */
  async rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    await this.visitRules(user, namespace, errors, (rule) => {
      rules.push(rule);
      return false;
    });
    return { rules, errors };
  }

  /**
   * Calls `visit` for each rule bound to the user until it returns true (VisitRulesFor): cluster role
   * bindings first, then role bindings of the namespace. `source` describes the binding as upstream does.
   */
  private async visitRules(
    user: UserInfo,
    namespace: string,
    errors: string[],
    visit: (rule: PolicyRule, source: string) => boolean,
  ): Promise<boolean> {
    try {
      for (const binding of await this.source.listClusterRoleBindings()) {
        const subject = (binding.subjects ?? []).find((candidate) => subjectMatchesUser(user, candidate, ''));
        if (!subject) continue;
        const source = `ClusterRoleBinding ${quote(binding.metadata.name)} of ${binding.roleRef.kind} ${quote(binding.roleRef.name)} to ${describeSubject(subject, '')}`;
        const rules = await this.roleRules(binding.roleRef, '', errors);
        if (rules.some((rule) => visit(rule, source))) return true;
      }
    } catch (error) {
      errors.push(message(error));
    }
    if (!namespace) return false;
    try {
      for (const binding of await this.source.listRoleBindings(namespace)) {
        const subject = (binding.subjects ?? []).find((candidate) =>
          subjectMatchesUser(user, candidate, namespace),
        );
        if (!subject) continue;
        const source = `RoleBinding ${quote(`${binding.metadata.name}/${namespace}`)} of ${binding.roleRef.kind} ${quote(binding.roleRef.name)} to ${describeSubject(subject, namespace)}`;
        const rules = await this.roleRules(binding.roleRef, namespace, errors);
        if (rules.some((rule) => visit(rule, source))) return true;
      }
    } catch (error) {
      errors.push(message(error));
    }
    return false;
  }

  /**
   * The rules of the role a binding in `namespace` ("" for a ClusterRoleBinding) points at
   * (GetRoleReferenceRules); a missing role is a 404 NotFound StatusError, as upstream's binding storage answers.
   */
  async roleReferenceRules(roleRef: RoleRef, namespace: string): Promise<PolicyRule[]> {
    const clusterRole = roleRef.kind === 'ClusterRole';
    if (!clusterRole && roleRef.kind !== 'Role') throw new Error(`unsupported role reference kind: ${quote(roleRef.kind)}`);
    const role = clusterRole ? await this.source.getClusterRole(roleRef.name) : await this.source.getRole(namespace, roleRef.name);
    if (!role) {
      throw StatusError.notFound({ group: 'rbac.authorization.k8s.io', resource: clusterRole ? 'clusterroles' : 'roles' }, roleRef.name);
    }
    return role.rules ?? [];
  }

  /** The rules of a binding's role (GetRoleReferenceRules); a missing role is a NotFound-worded error. */
  private async roleRules(roleRef: RoleRef, namespace: string, errors: string[]): Promise<PolicyRule[]> {
    try {
      if (roleRef.kind === 'ClusterRole') {
        const role = await this.source.getClusterRole(roleRef.name);
        if (role) return role.rules ?? [];
        errors.push(`clusterroles.rbac.authorization.k8s.io ${quote(roleRef.name)} not found`);
        return [];
      }
      if (roleRef.kind === 'Role' && namespace) {
        const role = await this.source.getRole(namespace, roleRef.name);
        if (role) return role.rules ?? [];
        errors.push(`roles.rbac.authorization.k8s.io ${quote(roleRef.name)} not found`);
        return [];
      }
      errors.push(`unsupported role reference kind: ${quote(roleRef.kind)}`);
    } catch (error) {
      errors.push(message(error));
    }
    return [];
  }
}

/** `User "alice"`, `ServiceAccount "name/namespace"` (upstream's describeSubject). */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount')
    return `${subject.kind} ${quote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${quote(subject.name)}`;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** utilerrors.NewAggregate's text: one error alone, several as `[a, b]`. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}
