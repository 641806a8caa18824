import { afterEach, describe, expect, it } from 'vitest';
import { until } from './crd-fixtures.js';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its bindings: CEL validations the server
// runs itself, applied with kubectl, seen from the client's side.
const shared = serverForFile();

const created: string[] = [];
afterEach(async () => {
  for (const object of created.splice(0)) await kubectl(shared.server, ['delete', object, '--ignore-not-found']);
});

async function apply(kind: 'ValidatingAdmissionPolicy' | 'ValidatingAdmissionPolicyBinding', name: string, spec: Record<string, unknown>): Promise<void> {
  const object = { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, spec };
  await kubectl(shared.server, ['apply', '-f', '-'], JSON.stringify(object));
  created.push(`${kind.toLowerCase()}/${name}`);
}

async function post(path: string, body: unknown, query?: Record<string, string>) {
  const response = await shared.admin.raw({ method: 'POST', path, body, ...(query ? { query } : {}) });
  return {
    code: response.statusCode,
    warning: response.headers['warning'],
    body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown>,
  };
}

const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const configMapRules = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };

describe('ValidatingAdmissionPolicy', () => {
  it('denies what a bound policy finds invalid, with its message or messageExpression and reason; stores nothing', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'policed']);
    await kubectl(shared.server, ['create', 'namespace', 'free']);
    await apply('ValidatingAdmissionPolicy', 'config-rules.example.com', {
      matchConstraints: configMapRules,
      validations: [
        { expression: "!has(object.data) || !('forbidden' in object.data)", message: 'the key forbidden is not allowed' },
        {
          expression: 'object.metadata.name.size() <= 12',
          messageExpression: "'name ' + object.metadata.name + ' is too long'",
          reason: 'Forbidden',
        },
        { expression: "namespaceObject.metadata.name == 'policed' && request.operation in ['CREATE', 'UPDATE']" },
      ],
    });
    await apply('ValidatingAdmissionPolicyBinding', 'config-rules-policed', {
      policyName: 'config-rules.example.com',
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'policed' } } },
    });
    const path = '/api/v1/namespaces/policed/configmaps';
    // The server watches policies and bindings: they apply within moments (probed with dry runs).
    const refused = await until('the policy to apply', () => post(path, configMap('bad', { forbidden: 'x' }), { dryRun: 'All' }), (answer) => answer.code === 422);
    expect(refused.body).toMatchObject({
      reason: 'Invalid',
      message: "ValidatingAdmissionPolicy 'config-rules.example.com' with binding 'config-rules-policed' denied request: the key forbidden is not allowed",
    });
    const long = await post(path, configMap('a-rather-long-name'));
    expect(long.code).toBe(403);
    expect(long.body['message']).toBe(
      "ValidatingAdmissionPolicy 'config-rules.example.com' with binding 'config-rules-policed' denied request: name a-rather-long-name is too long",
    );
    expect((await shared.admin.raw({ method: 'GET', path: `${path}/a-rather-long-name` })).statusCode).toBe(404);
    expect((await post(path, configMap('fine', { ok: 'y' }))).code).toBe(201);
    // The binding selects namespaces: elsewhere the policy does not apply.
    expect((await post('/api/v1/namespaces/free/configmaps', configMap('bad', { forbidden: 'x' }))).code).toBe(201);
    // kubectl shows both, and the refusal.
    expect(await kubectl(shared.server, ['get', 'validatingadmissionpolicies'])).toMatch(/config-rules\.example\.com\s+3\s+<unset>\s+/);
    expect(await kubectl(shared.server, ['get', 'validatingadmissionpolicybindings'])).toMatch(/config-rules-policed\s+config-rules\.example\.com\s+/);
    await expect(kubectl(shared.server, ['create', 'configmap', 'bad2', '-n', 'policed', '--from-literal=forbidden=1'])).rejects.toThrow(
      'the key forbidden is not allowed',
    );
  });

  it('warns instead with validationActions Warn, and fails closed on an expression error', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'warned']);
    await apply('ValidatingAdmissionPolicy', 'team-label.example.com', {
      matchConstraints: { ...configMapRules, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'warned' } } },
      validations: [{ expression: "object.metadata.labels['team'] != ''", message: 'a team label is expected' }],
    });
    await apply('ValidatingAdmissionPolicyBinding', 'team-label-warn', { policyName: 'team-label.example.com', validationActions: ['Warn'] });
    const path = '/api/v1/namespaces/warned/configmaps';
    // No labels at all: the expression errs (no such key), a failure under failurePolicy Fail, here a warning.
    const warned = await until('the policy to warn', () => post(path, configMap(`w${Date.now()}`), { dryRun: 'All' }), (answer) => answer.warning !== undefined);
    expect(warned.code).toBe(201);
    expect(warned.warning).toContain(
      "Validation failed for ValidatingAdmissionPolicy 'team-label.example.com' with binding 'team-label-warn': expression 'object.metadata.labels['team'] != ''' resulted in error: ",
    );
  });

  it('evaluates composition variables in order, each reading the ones before', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'composed']);
    await apply('ValidatingAdmissionPolicy', 'prefixed.example.com', {
      matchConstraints: { ...configMapRules, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'composed' } } },
      variables: [
        { name: 'prefix', expression: "'ok-'" },
        { name: 'named', expression: 'object.metadata.name.startsWith(variables.prefix)' },
      ],
      validations: [{ expression: 'variables.named', messageExpression: "'names start with ' + variables.prefix" }],
    });
    await apply('ValidatingAdmissionPolicyBinding', 'prefixed', { policyName: 'prefixed.example.com', validationActions: ['Deny'] });
    const path = '/api/v1/namespaces/composed/configmaps';
    const refused = await until('the policy to apply', () => post(path, configMap('plain'), { dryRun: 'All' }), (answer) => answer.code === 422);
    expect(refused.body['message']).toBe("ValidatingAdmissionPolicy 'prefixed.example.com' with binding 'prefixed' denied request: names start with ok-");
    expect((await post(path, configMap('ok-named'))).code).toBe(201);
  });

  it('evaluates a policy with the parameters its binding names, and denies without them under parameterNotFoundAction Deny', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'with-params']);
    await kubectl(shared.server, ['create', 'namespace', 'params-ns']);
    await kubectl(shared.server, ['create', 'configmap', 'limits', '-n', 'params-ns', '--from-literal=maxKeys=2']);
    await apply('ValidatingAdmissionPolicy', 'max-keys.example.com', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: configMapRules,
      validations: [{ expression: 'size(object.data) <= int(params.data.maxKeys)', messageExpression: "'at most ' + params.data.maxKeys + ' keys'" }],
    });
    const selector = (name: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
    await apply('ValidatingAdmissionPolicyBinding', 'max-keys', {
      policyName: 'max-keys.example.com',
      paramRef: { name: 'limits', namespace: 'params-ns', parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny'],
      matchResources: selector('with-params'),
    });
    const path = '/api/v1/namespaces/with-params/configmaps';
    const refused = await until('the policy to apply', () => post(path, configMap('three', { a: '1', b: '2', c: '3' }), { dryRun: 'All' }), (answer) => answer.code === 422);
    expect(refused.body['message']).toBe("ValidatingAdmissionPolicy 'max-keys.example.com' with binding 'max-keys' denied request: at most 2 keys");
    expect((await post(path, configMap('two', { a: '1', b: '2' }))).code).toBe(201);
    expect(await kubectl(shared.server, ['get', 'validatingadmissionpolicybindings', 'max-keys'])).toMatch(/max-keys\s+max-keys\.example\.com\s+params-ns\/limits\s+/);
    // A binding whose parameter does not exist denies under parameterNotFoundAction Deny.
    await kubectl(shared.server, ['create', 'namespace', 'missing-params']);
    await apply('ValidatingAdmissionPolicyBinding', 'max-keys-missing', {
      policyName: 'max-keys.example.com',
      paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny'],
      matchResources: selector('missing-params'),
    });
    const denied = await until('the binding to apply', () => post('/api/v1/namespaces/missing-params/configmaps', configMap('any'), { dryRun: 'All' }), (answer) => answer.code === 422);
    expect(denied.body['message']).toBe(
      "ValidatingAdmissionPolicy 'max-keys.example.com' with binding 'max-keys-missing' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it('refuses invalid policies and bindings', async () => {
    const policy = await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'broken.example.com' },
      spec: {
        paramKind: { kind: 'ConfigMap' },
        matchConstraints: configMapRules,
        validations: [{ expression: 'object.metadata.name ==', reason: 'Teapot' }],
      },
    });
    expect(policy.code).toBe(422);
    for (const part of [
      'spec.paramKind.apiVersion: Required value',
      'spec.validations[0].expression: Invalid value: "object.metadata.name ==": compilation failed: ERROR:',
      'spec.validations[0].reason: Unsupported value: "Teapot"',
    ])
      expect(String(policy.body['message'])).toContain(part);
    const binding = await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'broken' },
      spec: { validationActions: ['Deny', 'Warn'], paramRef: { name: 'a', selector: {} } },
    });
    expect(binding.code).toBe(422);
    expect(String(binding.body['message'])).toContain('spec.policyName: Required value');
    expect(String(binding.body['message'])).toContain('must not contain both Deny and Warn');
    expect(String(binding.body['message'])).toContain('spec.paramRef: Forbidden: one of `name` or `selector` must be set');
    expect(String(binding.body['message'])).toContain('spec.paramRef.parameterNotFoundAction: Required value');
  });
});

describe('ValidatingAdmissionPolicy matchPolicy', () => {
  it('evaluates a policy written for autoscaling/v2 on a v1 request, converted (Equivalent), and not under Exact', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'scaled']);
    const hpaRules = (matchPolicy: string) => ({
      matchPolicy,
      resourceRules: [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }],
    });
    // v1 has no spec.metrics: the policy only holds when it sees the object converted to v2.
    const validations = [
      {
        expression: "object.apiVersion == 'autoscaling/v2' && object.spec.metrics.all(m, m.resource.target.averageUtilization <= 80)",
        message: 'CPU targets above 80% are not allowed',
      },
    ];
    await apply('ValidatingAdmissionPolicy', 'cpu-target.example.com', { matchConstraints: hpaRules('Equivalent'), validations });
    await apply('ValidatingAdmissionPolicyBinding', 'cpu-target', {
      policyName: 'cpu-target.example.com',
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'scaled' } } },
    });
    const hpa = (name: string, target: number) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: target },
    });
    const path = '/apis/autoscaling/v1/namespaces/scaled/horizontalpodautoscalers';
    const refused = await until('the policy to apply', () => post(path, hpa('hot', 90), { dryRun: 'All' }), (answer) => answer.code === 422);
    expect(refused.body['message']).toBe(
      "ValidatingAdmissionPolicy 'cpu-target.example.com' with binding 'cpu-target' denied request: CPU targets above 80% are not allowed",
    );
    expect((await post(path, hpa('cool', 70))).code).toBe(201);
    // Under Exact the v2 rule does not match a v1 request.
    await apply('ValidatingAdmissionPolicy', 'cpu-target.example.com', { matchConstraints: hpaRules('Exact'), validations });
    await until('the Exact policy to apply', () => post(path, hpa('hot', 90), { dryRun: 'All' }), (answer) => answer.code === 201);
  });
});

describe('ValidatingAdmissionPolicy authorizer', () => {
  it("asks the server's authorizer for the request's user: a label only users allowed to `approve` may set", async () => {
    await kubectl(shared.server, ['create', 'namespace', 'approvals']);
    await kubectl(shared.server, ['create', 'role', 'writer', '-n', 'approvals', '--verb=create', '--resource=configmaps']);
    await kubectl(shared.server, ['create', 'rolebinding', 'writer', '-n', 'approvals', '--role=writer', '--user=alice']);
    await apply('ValidatingAdmissionPolicy', 'approved-label.example.com', {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
      validations: [
        {
          expression:
            "!has(object.metadata.labels) || !('approved' in object.metadata.labels) || authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('approve').allowed()",
          messageExpression: "request.userInfo.username + ' may not approve: ' + authorizer.requestResource.check('approve').reason()",
        },
      ],
    });
    await apply('ValidatingAdmissionPolicyBinding', 'approved-label', {
      policyName: 'approved-label.example.com',
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'approvals' } } },
    });
    const approved = (name: string) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'approvals', labels: { approved: 'yes' } } });
    const asAlice = (name: string) =>
      kubectl(shared.server, ['--as=alice', 'create', '--dry-run=server', '-f', '-'], approved(name)).then(
        () => 'created',
        (error: Error) => error.message,
      );
    const refusal = await until('the policy to apply', () => asAlice('a1'), (outcome) => outcome !== 'created');
    expect(refusal).toContain(
      "ValidatingAdmissionPolicy 'approved-label.example.com' with binding 'approved-label' denied request: alice may not approve",
    );
    // Without the label, and for the admin, it is allowed.
    await kubectl(shared.server, ['--as=alice', 'create', 'configmap', 'plain', '-n', 'approvals']);
    await kubectl(shared.server, ['create', '-f', '-'], approved('by-admin'));
    // Once alice may approve, so may her creates.
    await kubectl(shared.server, ['create', 'role', 'approver', '-n', 'approvals', '--verb=approve', '--resource=configmaps']);
    await kubectl(shared.server, ['create', 'rolebinding', 'approver', '-n', 'approvals', '--role=approver', '--user=alice']);
    expect(await until('the role to apply', () => asAlice('a2'), (outcome) => outcome === 'created')).toBe('created');
  });
});
