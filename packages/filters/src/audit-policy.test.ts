import { describe, expect, it } from 'vitest';
import { evaluateAuditPolicy, parseAuditPolicy, type AuditPolicy } from './audit-policy.js';
import { parseRequestInfo } from './request-info.js';

const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

function levelOf(policy: AuditPolicy, method: string, path: string, user = alice): string {
  return evaluateAuditPolicy(policy, parseRequestInfo(method, path), user).level;
}

describe('evaluateAuditPolicy', () => {
  it('matches resources as upstream: exact, subresource, */sub, resource/*, *, resourceNames', () => {
    const policy = parseAuditPolicy({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      rules: [
        { level: 'None', resources: [{ group: '', resources: ['pods/log'] }] },
        { level: 'Request', resources: [{ group: '', resources: ['*/status'] }] },
        { level: 'RequestResponse', resources: [{ group: 'apps', resources: ['deployments/*'] }] },
        { level: 'Request', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['special'] }] },
        { level: 'RequestResponse', resources: [{ group: 'batch' }] },
        { level: 'Metadata' },
      ],
    });
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/a/pods/p/log')).toBe('None');
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/a/pods/p')).toBe('Metadata');
    expect(levelOf(policy, 'PUT', '/api/v1/namespaces/a/pods/p/status')).toBe('Request');
    expect(levelOf(policy, 'GET', '/apis/apps/v1/namespaces/a/deployments/d')).toBe('RequestResponse');
    expect(levelOf(policy, 'GET', '/apis/apps/v1/namespaces/a/deployments/d/scale')).toBe('RequestResponse');
    expect(levelOf(policy, 'GET', '/apis/apps/v1/namespaces/a/replicasets/r')).toBe('Metadata');
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/a/configmaps/special')).toBe('Request');
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/a/configmaps/other')).toBe('Metadata');
    expect(levelOf(policy, 'GET', '/apis/batch/v1/namespaces/a/jobs')).toBe('RequestResponse');
  });

  it('matches users, groups, verbs, namespaces and non-resource URLs; first match wins; stages add up', () => {
    const policy = parseAuditPolicy({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [
        { level: 'None', users: ['bob'] },
        { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
        { level: 'RequestResponse', userGroups: ['devs'], verbs: ['delete'], omitStages: ['ResponseStarted'] },
        { level: 'Request', namespaces: [''] },
        { level: 'Request', namespaces: ['kube-system'] },
        { level: 'Metadata', nonResourceURLs: ['/api*'] },
      ],
    });
    expect(levelOf(policy, 'GET', '/api/v1/pods', { name: 'bob', groups: [] })).toBe('None');
    expect(levelOf(policy, 'GET', '/healthz/etcd')).toBe('None');
    expect(levelOf(policy, 'GET', '/version')).toBe('None');
    expect(levelOf(policy, 'GET', '/versions')).toBe('None'); // no rule matches
    expect(evaluateAuditPolicy(policy, parseRequestInfo('DELETE', '/api/v1/namespaces/a/pods/p'), alice)).toEqual({
      level: 'RequestResponse',
      omitStages: ['RequestReceived', 'ResponseStarted'],
    });
    expect(levelOf(policy, 'GET', '/api/v1/nodes/n')).toBe('Request');
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/kube-system/pods/p')).toBe('Request');
    expect(levelOf(policy, 'GET', '/api/v1/namespaces/a/pods/p')).toBe('None');
    expect(levelOf(policy, 'GET', '/api')).toBe('Metadata');
  });

  it('refuses a document that is not an audit.k8s.io/v1 Policy or has a bad level', () => {
    expect(() => parseAuditPolicy({ apiVersion: 'v1', kind: 'Policy', rules: [{ level: 'None' }] })).toThrow(
      'want apiVersion audit.k8s.io/v1, kind Policy',
    );
    expect(() =>
      parseAuditPolicy({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Everything' }] }),
    ).toThrow('rules[0].level: Unsupported value: "Everything"');
  });
});
