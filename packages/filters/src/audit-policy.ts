import type { RequestInfo, UserInfo } from './handler.js';

/** How much of a request an audit event records (audit.k8s.io/v1 Level). */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** A point in a request's life at which an event is written (audit.k8s.io/v1 Stage). */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** Resources a rule matches (audit.k8s.io/v1 GroupResources). */
export interface AuditGroupResources {
  /** The API group; `""` is the core group. */
  group?: string;
  // `pods`, `pods/log`, `*` (all), `*/log` (that subresource of any), `pods/*` (pods and its subresources).
  // Empty: every resource of the group.
  resources?: string[];
  resourceNames?: string[];
}

/** One rule of an audit policy (audit.k8s.io/v1 PolicyRule); an empty list matches everything. */
export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  /** `""` matches cluster-scoped resources. */
  namespaces?: string[];
  /** Exact paths, or prefixes ending in `*`. */
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
}

/** An audit policy (audit.k8s.io/v1 Policy): the first matching rule decides; none matching means `None`. */
export interface AuditPolicy {
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
}

/** The level of a request and the stages not to record. */
export interface AuditRequestPolicy {
  level: AuditLevel;
  omitStages: AuditStage[];
}

const levels = new Set<string>(['None', 'Metadata', 'Request', 'RequestResponse']);
const stages = new Set<string>(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);

/** Checks a decoded policy document (apiVersion audit.k8s.io/v1, kind Policy), throwing on a bad one. */
export function parseAuditPolicy(document: unknown): AuditPolicy {
  const policy = document as Partial<AuditPolicy> & { apiVersion?: unknown; kind?: unknown };
  if (typeof policy !== 'object' || policy === null) throw new Error('audit policy: not an object');
  if (policy.kind !== 'Policy' || policy.apiVersion !== 'audit.k8s.io/v1') {
    throw new Error(`audit policy: want apiVersion audit.k8s.io/v1, kind Policy`);
  }
  const rules = policy.rules ?? [];
  if (!Array.isArray(rules) || rules.length === 0) throw new Error('audit policy: rules: Required value');
  const checkStages = (list: unknown, where: string) => {
    for (const stage of (list as unknown[] | undefined) ?? []) {
      if (!stages.has(String(stage))) throw new Error(`audit policy: ${where}.omitStages: Unsupported value: "${String(stage)}"`);
    }
  };
  checkStages(policy.omitStages, 'policy');
  rules.forEach((rule, index) => {
    if (!levels.has(String(rule.level))) {
      throw new Error(`audit policy: rules[${index}].level: Unsupported value: "${String(rule.level)}"`);
    }
    if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)) {
      throw new Error(`audit policy: rules[${index}].nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs`);
    }
    checkStages(rule.omitStages, `rules[${index}]`);
  });
  return { rules, ...(policy.omitStages ? { omitStages: policy.omitStages } : {}) };
}

/** The level and omitted stages of a request under `policy` (upstream's policy checker). */
export function evaluateAuditPolicy(policy: AuditPolicy, info: RequestInfo, user: UserInfo | undefined): AuditRequestPolicy {
  for (const rule of policy.rules) {
    if (ruleMatches(rule, info, user)) {
      return { level: rule.level, omitStages: [...(policy.omitStages ?? []), ...(rule.omitStages ?? [])] };
    }
  }
  return { level: 'None', omitStages: [...(policy.omitStages ?? [])] };
}

function ruleMatches(rule: AuditPolicyRule, info: RequestInfo, user: UserInfo | undefined): boolean {
  // Without a user (failed authentication) no user or group rule matches, as upstream.
  if (rule.users?.length && (!user || !rule.users.includes(user.name))) return false;
  if (rule.userGroups?.length && !(user?.groups ?? []).some((group) => rule.userGroups?.includes(group))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(info.verb)) return false;
  if (!rule.nonResourceURLs?.length && !rule.resources?.length && !rule.namespaces?.length) return true;
  return info.isResourceRequest ? matchesResource(rule, info) : matchesNonResource(rule, info.path);
}

function matchesResource(rule: AuditPolicyRule, info: RequestInfo): boolean {
  if (rule.nonResourceURLs?.length) return false;
  if (rule.namespaces?.length && !rule.namespaces.includes(info.namespace)) return false;
  if (!rule.resources?.length) return true;
  const combined = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  for (const groupResources of rule.resources) {
    if ((groupResources.group ?? '') !== info.apiGroup) continue;
    if (!groupResources.resources?.length) return true;
    const names = groupResources.resourceNames ?? [];
    if (names.length > 0 && !names.includes(info.name)) continue;
    for (const resource of groupResources.resources) {
      if (resource === combined || resource === '*') return true;
      if (info.subresource && resource.startsWith('*/') && resource.slice(2) === info.subresource) return true;
      if (resource.endsWith('/*') && resource.slice(0, -2) === info.resource) return true;
    }
  }
  return false;
}

function matchesNonResource(rule: AuditPolicyRule, path: string): boolean {
  if (rule.resources?.length || rule.namespaces?.length) return false;
  return (rule.nonResourceURLs ?? []).some((spec) =>
    spec.endsWith('*') ? path.startsWith(spec.slice(0, -1)) : path === spec,
  );
}
