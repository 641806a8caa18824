import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionWebhook } from '../resources/admission-registration.js';
import { namespaceSelectorMatches, objectSelectorMatches, rulesMatch, type AdmissionAttributes } from './webhook-matching.js';

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

  it('checks the version only under matchPolicy Exact, and the scope', () => {
    const v2 = attributes({ version: 'v2' });
    expect(rulesMatch(webhook({}), v2)).toBe(true);
    expect(rulesMatch(webhook({}, { matchPolicy: 'Exact' }), v2)).toBe(false);
    expect(rulesMatch(webhook({ scope: 'Cluster' }), attributes())).toBe(false);
    expect(rulesMatch(webhook({ scope: 'Namespaced' }), attributes())).toBe(true);
    expect(rulesMatch(webhook({ scope: 'Namespaced' }), attributes({ namespaced: false }))).toBe(false);
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
