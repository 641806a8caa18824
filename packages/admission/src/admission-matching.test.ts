import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionWebhook } from './admission-registration.js';
import {
  atVersion,
  matchedVersion,
  namespaceSelectorMatches,
  objectSelectorMatches,
  rulesMatch,
  type AdmissionAttributes,
} from './admission-matching.js';

const attributes = (overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  subresource: '',
  kind: 'Deployment',
  namespaced: true,
  namespace: 'team',
  name: 'web',
  dryRun: false,
  ...overrides,
});

const webhook = (rule: Record<string, unknown>, extra: Partial<AdmissionWebhook> = {}): AdmissionWebhook => ({
  name: 'a.b.c',
  clientConfig: { url: 'https://example.com' },
  rules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], ...rule }],
  ...extra,
});

const object = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'x', labels } });

describe('admission webhook rules (upstream rule matcher)', () => {
  it('matches operation, group, version and resource, with wildcards', () => {
    expect(rulesMatch(webhook({}), attributes())).toBe(true);
    expect(rulesMatch(webhook({ operations: ['UPDATE'] }), attributes())).toBe(false);
    expect(rulesMatch(webhook({ operations: ['*'], apiGroups: ['*'], resources: ['*'] }), attributes())).toBe(true);
    expect(rulesMatch(webhook({ apiGroups: [''] }), attributes())).toBe(false);
  });

  it('tells resources from subresources as upstream: `*` is every resource, `*/*` and `x/*` take subresources too', () => {
    const status = attributes({ operation: 'UPDATE', subresource: 'status' });
    const on = (resources: string[]) => rulesMatch(webhook({ operations: ['UPDATE'], resources }), status);
    expect(on(['deployments'])).toBe(false);
    expect(on(['*'])).toBe(false);
    expect(on(['deployments/status'])).toBe(true);
    expect(on(['deployments/*'])).toBe(true);
    expect(on(['*/status'])).toBe(true);
    expect(on(['*/*'])).toBe(true);
    expect(on(['deployments/scale'])).toBe(false);
  });

  it('matches another served version under matchPolicy Equivalent only, and the scope', () => {
    const v2 = attributes({ version: 'v2', versions: ['v2', 'v1beta1', 'v1'] });
    expect(matchedVersion(webhook({}), v2)).toBe('v1');
    expect(matchedVersion(webhook({ apiVersions: ['v1', 'v2'] }), v2)).toBe('v2');
    // The first served version (preferred first) a rule names.
    expect(matchedVersion(webhook({ apiVersions: ['v1', 'v1beta1'] }), v2)).toBe('v1beta1');
    expect(matchedVersion(webhook({}, { matchPolicy: 'Exact' }), v2)).toBeUndefined();
    expect(matchedVersion(webhook({ apiVersions: ['v3'] }), v2)).toBeUndefined();
    expect(rulesMatch(webhook({ scope: 'Cluster' }), attributes())).toBe(false);
    expect(rulesMatch(webhook({ scope: 'Namespaced' }), attributes())).toBe(true);
    expect(rulesMatch(webhook({ scope: 'Namespaced' }), attributes({ namespaced: false }))).toBe(false);
  });

  it('converts the objects to the version a webhook is asked in, keeping the request version', async () => {
    const convert = async (o: KubeObject, version: string) => ({ ...o, apiVersion: `apps/${version}` });
    const request = attributes({ version: 'v2', object: { ...object({}), apiVersion: 'apps/v2' }, convert });
    const asked = await atVersion(request, 'v1');
    expect(asked).toMatchObject({ version: 'v1', requestVersion: 'v2', object: { apiVersion: 'apps/v1' } });
    expect(asked.oldObject).toBeUndefined();
    expect(await atVersion(request, 'v2')).toBe(request);
  });

  it('matches the objectSelector on the object or the old object', () => {
    const selected = webhook({}, { objectSelector: { matchLabels: { tier: 'web' } } });
    expect(objectSelectorMatches(selected, attributes({ object: object({ tier: 'web' }) }))).toBe(true);
    expect(objectSelectorMatches(selected, attributes({ object: object({}), oldObject: object({ tier: 'web' }) }))).toBe(true);
    expect(objectSelectorMatches(selected, attributes({ object: object({ tier: 'db' }) }))).toBe(false);
    expect(objectSelectorMatches(webhook({}), attributes({ object: object({}) }))).toBe(true);
  });

  it("matches the namespaceSelector on the namespace's labels, a Namespace's own, and always for other cluster-scoped objects", async () => {
    const selected = webhook({}, { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } });
    const labels = async (namespace: string) => (namespace === 'team' ? { env: 'prod' } : {});
    expect(await namespaceSelectorMatches(selected, attributes(), labels)).toBe(true);
    expect(await namespaceSelectorMatches(selected, attributes({ namespace: 'other' }), labels)).toBe(false);
    const namespace = { group: '', resource: 'namespaces', namespaced: false, namespace: '' };
    expect(await namespaceSelectorMatches(selected, attributes({ ...namespace, object: object({ env: 'prod' }) }), labels)).toBe(true);
    expect(await namespaceSelectorMatches(selected, attributes({ ...namespace, object: object({}) }), labels)).toBe(false);
    expect(await namespaceSelectorMatches(selected, attributes({ resource: 'clusterroles', namespaced: false, namespace: '' }), labels)).toBe(true);
  });
});
