import type { UserInfo } from './handler.js';
import type { PolicyRule } from './rbac-types.js';

/** Every permission there is (what an aggregationRule may gather): `*` on `*.*` and on every URL. */
export const fullAuthorityRules: readonly PolicyRule[] = Object.freeze([
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
]);

const has = (set: readonly string[] | undefined, value: string) => (set ?? []).includes(value);
const hasAll = (set: readonly string[] | undefined, values: readonly string[] | undefined) =>
  (values ?? []).every((value) => has(set, value));

/**
 * Splits a rule into rules of one verb, one group/resource (or one URL) and at most one resource name
 * (rbac BreakdownRule).
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const subrules: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) subrules.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) {
          subrules.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) subrules.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return subrules;
}

/** `*`, every resource exactly, or `*\/<subresource>` for each subresource asked. */
function resourcesCover(owned: readonly string[] | undefined, asked: readonly string[] | undefined): boolean {
  if (has(owned, '*') || hasAll(owned, asked)) return true;
  return (asked ?? []).every((path) => {
    if (has(owned, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owned, `*/${path.slice(slash + 1)}`);
  });
}

/** Each URL asked is owned exactly or under an owned prefix ending in `*`. */
function urlsCover(owned: readonly string[] | undefined, asked: readonly string[] | undefined): boolean {
  return (asked ?? []).every((path) =>
    (owned ?? []).some((url) => url === path || (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, '')))),
  );
}

/** Whether one owned rule covers a broken-down rule (rbac ruleCovers). */
function ruleCovers(owner: PolicyRule, subrule: PolicyRule): boolean {
  const ownerNames = owner.resourceNames ?? [];
  const names =
    (subrule.resourceNames ?? []).length === 0
      ? ownerNames.length === 0
      : ownerNames.length === 0 || hasAll(ownerNames, subrule.resourceNames);
  return (
    (has(owner.verbs, '*') || hasAll(owner.verbs, subrule.verbs)) &&
    (has(owner.apiGroups, '*') || hasAll(owner.apiGroups, subrule.apiGroups)) &&
    resourcesCover(owner.resources, subrule.resources) &&
    urlsCover(owner.nonResourceURLs, subrule.nonResourceURLs) &&
    names
  );
}

/** The broken-down parts of `rules` that no owned rule covers (rbac validation.Covers); empty: covered. */
export function uncoveredRules(owned: readonly PolicyRule[], rules: readonly PolicyRule[]): PolicyRule[] {
  return rules.flatMap(breakdownRule).filter((subrule) => !owned.some((owner) => ruleCovers(owner, subrule)));
}

/** Go's `%q` of a string list: `["a" "b"]`. */
function quoteList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

/** Upstream's CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`. */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quoteList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Merges rules of one group, one resource and at most one name that differ only in verbs (CompactRules). */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple =
      names.length <= 1 &&
      !rule.nonResourceURLs?.length &&
      rule.apiGroups?.length === 1 &&
      rule.resources?.length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...compacted, ...simple.values()];
}

/**
 * Upstream's escalation refusal: `user "bob" (groups=["g" "system:authenticated"]) is attempting to
 * grant RBAC permissions not currently held:` and the missing rules, compacted, one per line, sorted;
 * rule resolution errors, if any, follow.
 */
export function escalationMessage(user: UserInfo, missing: readonly PolicyRule[], resolutionErrors: readonly string[] = []): string {
  const descriptions = [...new Set(compactRules(missing).map(compactRuleString))].sort();
  let message = `user ${JSON.stringify(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (resolutionErrors.length > 0) message += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return message;
}
