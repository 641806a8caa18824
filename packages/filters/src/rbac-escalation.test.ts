import { describe, expect, it } from 'vitest';
import { breakdownRule, compactRuleString, escalationMessage, uncoveredRules } from './rbac-escalation.js';
import type { PolicyRule } from './rbac-types.js';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe('uncoveredRules (upstream validation.Covers)', () => {
  it('breaks rules down to one verb, group, resource and name', () => {
    expect(breakdownRule(rule(['get', 'list'], [''], ['pods'], ['a', 'b']))).toHaveLength(4);
    expect(breakdownRule(urls(['get'], ['/a', '/b']))).toEqual([urls(['get'], ['/a']), urls(['get'], ['/b'])]);
  });

  it('covers by *, by exact values, and subresources by */<sub>', () => {
    const owned = [rule(['*'], ['apps'], ['deployments']), rule(['get'], [''], ['*/status', 'pods'])];
    expect(uncoveredRules(owned, [rule(['delete', 'patch'], ['apps'], ['deployments'])])).toEqual([]);
    expect(uncoveredRules(owned, [rule(['get'], [''], ['pods', 'pods/status', 'services/status'])])).toEqual([]);
    expect(uncoveredRules(owned, [rule(['get'], [''], ['pods/log'])])).toEqual([rule(['get'], [''], ['pods/log'])]);
    expect(uncoveredRules(owned, [rule(['get'], ['*'], ['pods'])])).toEqual([rule(['get'], ['*'], ['pods'])]);
  });

  it('a name-limited owner covers only those names; an unlimited one covers any', () => {
    const owned = [rule(['get'], [''], ['configmaps'], ['x'])];
    expect(uncoveredRules(owned, [rule(['get'], [''], ['configmaps'], ['x'])])).toEqual([]);
    expect(uncoveredRules(owned, [rule(['get'], [''], ['configmaps'])])).toHaveLength(1);
    expect(uncoveredRules([rule(['get'], [''], ['configmaps'])], [rule(['get'], [''], ['configmaps'], ['y'])])).toEqual([]);
  });

  it('non-resource URLs: exact or under a prefix ending in *', () => {
    const owned = [urls(['get'], ['/healthz', '/apis/*'])];
    expect(uncoveredRules(owned, [urls(['get'], ['/healthz', '/apis/apps/v1'])])).toEqual([]);
    expect(uncoveredRules(owned, [urls(['get'], ['/metrics'])])).toEqual([urls(['get'], ['/metrics'])]);
    expect(uncoveredRules(owned, [urls(['*'], ['/healthz'])])).toHaveLength(1);
  });
});

describe('escalationMessage (upstream wording)', () => {
  it('lists the missing rules compacted by resource, sorted, one per line', () => {
    const missing = uncoveredRules([], [rule(['get', 'delete'], [''], ['secrets']), urls(['get'], ['/metrics'])]);
    expect(escalationMessage({ name: 'bob', groups: ['dev', 'system:authenticated'] }, missing)).toBe(
      'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
    expect(compactRuleString(rule(['get'], ['apps'], ['deployments'], ['web']))).toBe(
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
    );
  });
});
