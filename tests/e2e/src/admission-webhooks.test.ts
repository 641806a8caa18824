import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditEventsOf } from './audit-log.js';
import { customResourceDefinition, until } from './crd-fixtures.js';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

// admissionregistration.k8s.io/v1 webhooks, called by the server with AdmissionReviews over HTTPS: a real
// webhook server in this process answers them, and kubectl and plain REST calls see the outcome (and the
// audit log, the annotations webhooks add).
const auditDir = mkdtempSync(join(tmpdir(), 'kapi-webhook-audit-'));
const auditLog = join(auditDir, 'audit.log');
writeFileSync(join(auditDir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n    resources: [{ group: "", resources: ["configmaps"] }]\n');
const shared = serverForFile({ args: [`--audit-policy-file=${join(auditDir, 'policy.yaml')}`, `--audit-log-path=${auditLog}`] });

interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name: string;
  namespace?: string;
  operation: string;
  userInfo: { username?: string; groups?: string[] };
  object: { metadata: { labels?: Record<string, string> }; data?: Record<string, string>; spec?: Record<string, unknown> } | null;
  oldObject: { data?: Record<string, string> } | null;
  dryRun: boolean;
}

type Answer = {
  allowed: boolean;
  status?: Record<string, unknown>;
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
};

/** The webhook server: each path answers with its handler; every request is kept. */
const handlers = new Map<string, (request: AdmissionRequest) => Answer>();
const received: Array<{ path: string; request: AdmissionRequest }> = [];
let webhookServer: Server;
let caBundle = '';
let base = '';

beforeAll(async () => {
  const ca = generateCertificateAuthority({ commonName: 'admission-webhook-ca' });
  const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1', 'admission-svc.default.svc'] });
  caBundle = Buffer.from(ca.certificatePem).toString('base64');
  webhookServer = createServer({ key: serving.privateKeyPem, cert: serving.certificatePem }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as { request: AdmissionRequest };
      const path = new URL(request.url ?? '/', 'https://x').pathname;
      received.push({ path, request: review.request });
      const answer = handlers.get(path)?.(review.request) ?? { allowed: true };
      const { patch, ...rest } = answer;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: {
            uid: review.request.uid,
            ...rest,
            ...(patch ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } : {}),
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => webhookServer.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(webhookServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => webhookServer?.close(resolve));
});

const configurations: string[] = [];
afterEach(async () => {
  for (const configuration of configurations.splice(0)) await kubectl(shared.server, ['delete', configuration, '--ignore-not-found']);
  handlers.clear();
});

/** A webhook configuration of `kind` named `name` with one webhook, applied with kubectl. */
async function configure(kind: 'Validating' | 'Mutating', name: string, webhook: Record<string, unknown>): Promise<void> {
  const configuration = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks: [{ sideEffects: 'None', admissionReviewVersions: ['v1'], ...webhook }],
  };
  await kubectl(shared.server, ['apply', '-f', '-'], JSON.stringify(configuration));
  configurations.push(`${kind.toLowerCase()}webhookconfiguration/${name}`);
}

const rules = (resources: string[], operations = ['CREATE', 'UPDATE'], apiGroups = ['']) => [
  { operations, apiGroups, apiVersions: ['*'], resources },
];

async function post(path: string, body: unknown, query?: Record<string, string>) {
  const response = await shared.admin.raw({ method: 'POST', path, body, ...(query ? { query } : {}) });
  return { code: response.statusCode, body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown> };
}

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('validating admission webhooks', () => {
  it('refuses what the webhook denies with its message, stores nothing, and skips namespaces its selector leaves out', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'guarded']);
    await kubectl(shared.server, ['label', 'namespace', 'guarded', 'webhooks=on']);
    await kubectl(shared.server, ['create', 'namespace', 'open']);
    handlers.set('/validate', (request) =>
      request.object?.data?.['forbidden'] !== undefined
        ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'the key "forbidden" is not allowed' } }
        : { allowed: true, warnings: ['checked by deny.forbidden.example.com'], auditAnnotations: { checked: 'yes' } },
    );
    await configure('Validating', 'deny-forbidden', {
      name: 'deny.forbidden.example.com',
      clientConfig: { url: `${base}/validate`, caBundle },
      rules: rules(['configmaps']),
      namespaceSelector: { matchLabels: { webhooks: 'on' } },
    });
    const path = '/api/v1/namespaces/guarded/configmaps';
    // The server watches webhook configurations: the new one applies within moments (dry runs, which
    // webhooks with no side effects are asked about too, probe it without storing anything).
    await until('the webhook to refuse', () => post(path, configMap('bad', { forbidden: 'x' }), { dryRun: 'All' }), (answer) => answer.code === 403);
    const refused = await post(path, configMap('bad', { forbidden: 'x' }));
    expect(refused.code).toBe(403);
    expect(received.at(-2)?.request.dryRun).toBe(true);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message: 'admission webhook "deny.forbidden.example.com" denied the request: the key "forbidden" is not allowed',
    });
    expect((await shared.admin.raw({ method: 'GET', path: `${path}/bad` })).statusCode).toBe(404);
    const good = await shared.admin.raw({ method: 'POST', path, body: configMap('good', { fine: 'y' }) });
    expect(good.statusCode).toBe(201);
    // The webhook's warnings reach the client, its audit annotations the audit log (keyed by its name).
    expect(good.headers['warning']).toBe('299 - "checked by deny.forbidden.example.com"');
    const audited = (await auditEventsOf(auditLog, String(good.headers['audit-id']))).at(-1);
    expect(audited?.stage).toBe('ResponseComplete');
    expect(audited?.annotations?.['deny.forbidden.example.com/checked']).toBe('yes');
    const review = received.filter((entry) => entry.path === '/validate').at(-1)?.request;
    expect(review).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'good',
      namespace: 'guarded',
      operation: 'CREATE',
      object: { data: { fine: 'y' } },
      oldObject: null,
      dryRun: false,
    });
    expect(review?.userInfo.username).toBeTruthy();
    // As upstream, validating webhooks see the object with its system fields: the uid it is stored with.
    const seen = review?.object?.metadata as { uid?: string; creationTimestamp?: string } | undefined;
    expect(seen?.uid).toBe((good.body ? JSON.parse(good.body.toString()) : {}).metadata.uid);
    expect(seen?.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Outside the selector's namespaces the webhook is not asked.
    const asked = received.length;
    expect((await post('/api/v1/namespaces/open/configmaps', configMap('bad', { forbidden: 'x' }))).code).toBe(201);
    expect(received.length).toBe(asked);
    // The calls are counted as upstream's metrics count them.
    const metrics = (await shared.admin.raw({ method: 'GET', path: '/metrics' })).body.toString();
    expect(metrics).toMatch(
      /apiserver_admission_webhook_rejection_count\{name="deny\.forbidden\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /apiserver_admission_webhook_request_total\{name="deny\.forbidden\.example\.com",type="validating",operation="CREATE",code="200",rejected="false"\} [1-9]/,
    );
    // Stored with upstream's defaults.
    const stored = await shared.admin.request<{ webhooks: Array<Record<string, unknown>> }>({
      method: 'GET',
      path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/deny-forbidden',
    });
    expect(stored.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', objectSelector: {}, timeoutSeconds: 10 });
    expect(stored.webhooks[0]?.['rules']).toEqual([{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['*'], resources: ['configmaps'], scope: '*' }]);
    // kubectl shows the configuration, and the refusal.
    expect(await kubectl(shared.server, ['get', 'validatingwebhookconfigurations'])).toMatch(/deny-forbidden\s+1\s+/);
    await expect(
      kubectl(shared.server, ['create', 'configmap', 'also-bad', '-n', 'guarded', '--from-literal=forbidden=1']),
    ).rejects.toThrow('admission webhook "deny.forbidden.example.com" denied the request');
  });

  it('asks on update with the old object, and on delete', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'updates']);
    await kubectl(shared.server, ['create', 'configmap', 'kept', '-n', 'updates', '--from-literal=v=1']);
    handlers.set('/no-changes', (request) =>
      request.operation === 'DELETE' || request.object?.data?.['v'] !== request.oldObject?.data?.['v']
        ? { allowed: false, status: { message: `no ${request.operation.toLowerCase()} of ${request.name}` } }
        : { allowed: true },
    );
    await configure('Validating', 'freeze', {
      name: 'freeze.updates.example.com',
      clientConfig: { url: `${base}/no-changes`, caBundle },
      rules: rules(['configmaps'], ['UPDATE', 'DELETE']),
      objectSelector: {},
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['updates'] }] },
    });
    const path = '/api/v1/namespaces/updates/configmaps/kept';
    const update = (query?: Record<string, string>) =>
      shared.admin.raw({ method: 'PATCH', path, contentType: 'application/merge-patch+json', body: { data: { v: '2' } }, ...(query ? { query } : {}) });
    await until('the webhook to refuse', () => update({ dryRun: 'All' }), (answer) => answer.statusCode === 400);
    const refused = await update();
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ message: 'admission webhook "freeze.updates.example.com" denied the request: no update of kept' });
    const review = received.filter((entry) => entry.path === '/no-changes').at(-1)?.request;
    expect(review).toMatchObject({ operation: 'UPDATE', object: { data: { v: '2' } }, oldObject: { data: { v: '1' } } });
    await expect(kubectl(shared.server, ['delete', 'configmap', 'kept', '-n', 'updates'])).rejects.toThrow('no delete of kept');
    expect((await shared.admin.raw({ method: 'GET', path })).statusCode).toBe(200);
  });

  it('fails closed on an unreachable webhook with failurePolicy Fail, and open with Ignore', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'unreachable']);
    const unreachable = { url: 'https://127.0.0.1:1/nothing', caBundle };
    const namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': 'unreachable' } };
    await configure('Validating', 'down', {
      name: 'down.example.com',
      clientConfig: unreachable,
      rules: rules(['configmaps']),
      namespaceSelector,
      timeoutSeconds: 2,
    });
    const path = '/api/v1/namespaces/unreachable/configmaps';
    const failed = await until('the webhook to be called', () => post(path, configMap(`c${Date.now()}`)), (answer) => answer.code !== 201);
    expect(failed.code).toBe(500);
    expect(String(failed.body['message'])).toMatch(
      /^Internal error occurred: failed calling webhook "down\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:1\/nothing\?timeout=2s": /,
    );
    await configure('Validating', 'down', {
      name: 'down.example.com',
      clientConfig: unreachable,
      rules: rules(['configmaps']),
      namespaceSelector,
      failurePolicy: 'Ignore',
    });
    await until('the webhook to be ignored', () => post(path, configMap(`c${Date.now()}`)), (answer) => answer.code === 201);
    const metrics = (await shared.admin.raw({ method: 'GET', path: '/metrics' })).body.toString();
    expect(metrics).toMatch(/apiserver_admission_webhook_fail_open_count\{name="down\.example\.com",type="validating"\} [1-9]/);
    expect(metrics).toMatch(
      /apiserver_admission_webhook_rejection_count\{name="down\.example\.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="0"\} [1-9]/,
    );
  });

  it('reaches a webhook through clientConfig.service (the Service\'s EndpointSlice, TLS name <name>.<namespace>.svc)', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'by-service']);
    const port = Number(new URL(base).port);
    await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'admission-svc' },
      spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
    });
    await post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'admission-svc-1', labels: { 'kubernetes.io/service-name': 'admission-svc' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port }],
    });
    handlers.set('/by-service', (request) => ({ allowed: false, status: { message: `seen ${request.name} through the service` } }));
    await configure('Validating', 'by-service', {
      name: 'by.service.example.com',
      clientConfig: { service: { namespace: 'default', name: 'admission-svc', path: '/by-service' }, caBundle },
      rules: rules(['configmaps']),
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'by-service' } },
    });
    const refused = await until(
      'the webhook to be reached',
      () => post('/api/v1/namespaces/by-service/configmaps', configMap('routed'), { dryRun: 'All' }),
      (answer) => answer.code === 400,
    );
    expect(refused.body['message']).toBe('admission webhook "by.service.example.com" denied the request: seen routed through the service');
  });

  it('asks only when every matchCondition (CEL) holds; fails closed on an evaluation error', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'conditions']);
    handlers.set('/conditions', (request) => ({ allowed: false, status: { message: `${request.name} was checked` } }));
    await configure('Validating', 'conditions', {
      name: 'conditions.example.com',
      clientConfig: { url: `${base}/conditions`, caBundle },
      rules: rules(['configmaps']),
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'conditions' } },
      matchConditions: [
        { name: 'checked-names', expression: "object.metadata.name.startsWith('checked-')" },
        { name: 'not-the-skipper', expression: "request.userInfo.username != 'skipper'" },
      ],
    });
    const path = '/api/v1/namespaces/conditions/configmaps';
    const refused = await until('the webhook to apply', () => post(path, configMap('checked-1'), { dryRun: 'All' }), (answer) => answer.code === 400);
    expect(refused.body['message']).toBe('admission webhook "conditions.example.com" denied the request: checked-1 was checked');
    const asked = received.length;
    expect((await post(path, configMap('unchecked'))).code).toBe(201);
    expect(received.length).toBe(asked);
    // A condition that fails to evaluate (no such key) refuses under failurePolicy Fail.
    await configure('Validating', 'conditions', {
      name: 'conditions.example.com',
      clientConfig: { url: `${base}/conditions`, caBundle },
      rules: rules(['configmaps']),
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'conditions' } },
      matchConditions: [{ name: 'labelled', expression: "object.metadata.labels['team'] == 'a'" }],
    });
    const failed = await until('the new conditions to apply', () => post(path, configMap('unlabelled'), { dryRun: 'All' }), (answer) => answer.code === 500);
    expect(String(failed.body['message'])).toContain('failed calling webhook "conditions.example.com": failed evaluating match conditions: labelled: ');
    // A condition that does not compile is refused with the configuration.
    const invalid = await post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bad-condition' },
      webhooks: [
        {
          name: 'bad.condition.example.com',
          clientConfig: { url: `${base}/conditions` },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          matchConditions: [{ name: 'broken', expression: 'object.metadata.name ==' }],
        },
      ],
    });
    expect(invalid.code).toBe(422);
    expect(String(invalid.body['message'])).toContain('webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name ==": compilation failed: ERROR:');
  });

  it('refuses invalid configurations with upstream texts', async () => {
    const invalid = await post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'broken' },
      webhooks: [
        { name: 'short.name', clientConfig: { url: 'http://example.com/x' }, admissionReviewVersions: ['v2'], timeoutSeconds: 31 },
      ],
    });
    expect(invalid.code).toBe(422);
    const message = String(invalid.body['message']);
    for (const part of [
      'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Required value',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      `webhooks[0].clientConfig.url: Invalid value: "http://example.com/x": 'https' is the only allowed URL scheme`,
    ])
      expect(message).toContain(part);
  });
});

describe('mutating admission webhooks', () => {
  it('applies the JSONPatch before validation, to objects the objectSelector picks, built-in and custom', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'mutated']);
    handlers.set('/mutate', (request) => ({
      allowed: true,
      patch: [{ op: 'add', path: '/metadata/labels/stamped', value: request.object?.metadata.labels?.['bad'] ? 'not a valid value!' : 'yes' }],
    }));
    await configure('Mutating', 'stamp', {
      name: 'stamp.mutate.example.com',
      clientConfig: { url: `${base}/mutate`, caBundle },
      rules: [
        { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
        { operations: ['CREATE'], apiGroups: ['stamp.example.com'], apiVersions: ['*'], resources: ['widgets'] },
      ],
      objectSelector: { matchLabels: { stamp: 'me' } },
      reinvocationPolicy: 'IfNeeded',
    });
    const path = '/api/v1/namespaces/mutated/configmaps';
    const stamped = await until(
      'the webhook to stamp',
      async () => {
        const name = `s${Date.now()}`;
        return post(path, configMap(name, {}, { stamp: 'me' }));
      },
      (answer) => (answer.body['metadata'] as { labels?: Record<string, string> }).labels?.['stamped'] === 'yes',
    );
    expect(stamped.code).toBe(201);
    // Not picked by the selector: left as sent.
    const plain = await post(path, configMap('plain'));
    expect((plain.body['metadata'] as { labels?: object }).labels).toBeUndefined();
    // The patched object is validated: an invalid label value from the webhook is refused (422), nothing stored.
    const invalid = await post(path, configMap('invalid', {}, { stamp: 'me', bad: 'yes' }));
    expect(invalid.code).toBe(422);
    expect(String(invalid.body['message'])).toContain('metadata.labels: Invalid value: "not a valid value!"');
    // Custom resources are sent too.
    const crd = customResourceDefinition({ group: 'stamp.example.com', kind: 'Widget' });
    await kubectl(shared.server, ['apply', '-f', '-'], JSON.stringify(crd));
    await kubectl(shared.server, ['wait', '--for=condition=Established', 'crd/widgets.stamp.example.com', '--timeout=30s']);
    const widget = await until(
      'the widget to be served',
      () =>
        post('/apis/stamp.example.com/v1/namespaces/mutated/widgets', {
          apiVersion: 'stamp.example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', labels: { stamp: 'me' } },
          spec: { size: 1 },
        }),
      (answer) => answer.code !== 404,
    );
    expect(widget.code).toBe(201);
    expect(widget.body['metadata']).toMatchObject({ labels: { stamp: 'me', stamped: 'yes' } });
    expect(received.filter((entry) => entry.path === '/mutate').at(-1)?.request).toMatchObject({
      kind: { group: 'stamp.example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'stamp.example.com', version: 'v1', resource: 'widgets' },
    });
  });

  it('matches each webhook against the object the ones before it left, and asks IfNeeded ones again after a later change', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'chained']);
    const namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': 'chained' } };
    const label = (key: string) => ({ op: 'add', path: `/metadata/labels/${key}`, value: 'yes' });
    // a-first (IfNeeded) labels `first`; b-second only selects objects with that label and labels `second`.
    handlers.set('/first', (request) => ({ allowed: true, patch: request.object?.metadata.labels?.['first'] ? [] : [label('first')] }));
    handlers.set('/second', () => ({ allowed: true, patch: [label('second')] }));
    await configure('Mutating', 'a-first', {
      name: 'first.chained.example.com',
      clientConfig: { url: `${base}/first`, caBundle },
      rules: rules(['configmaps'], ['CREATE']),
      namespaceSelector,
      objectSelector: { matchLabels: { chain: 'on' } },
      reinvocationPolicy: 'IfNeeded',
    });
    await configure('Mutating', 'b-second', {
      name: 'second.chained.example.com',
      clientConfig: { url: `${base}/second`, caBundle },
      rules: rules(['configmaps'], ['CREATE']),
      namespaceSelector,
      objectSelector: { matchLabels: { first: 'yes' } },
    });
    const created = await until(
      'both webhooks to apply',
      () => post('/api/v1/namespaces/chained/configmaps', configMap(`c${Date.now()}`, {}, { chain: 'on' }), { dryRun: 'All' }),
      (answer) => (answer.body['metadata'] as { labels?: Record<string, string> }).labels?.['second'] === 'yes',
    );
    expect(created.body['metadata']).toMatchObject({ labels: { chain: 'on', first: 'yes', second: 'yes' } });
    // a-first was asked again after b-second changed the object: its last review carries `second`.
    const firstReviews = received.filter((entry) => entry.path === '/first' && entry.request.name === (created.body['metadata'] as { name: string }).name);
    expect(firstReviews).toHaveLength(2);
    expect(firstReviews[1]?.request.object?.metadata.labels).toMatchObject({ first: 'yes', second: 'yes' });
    // The audit event records each call as upstream: round and index, configuration, webhook, and whether it changed the object.
    const stored = await shared.admin.raw({ method: 'POST', path: '/api/v1/namespaces/chained/configmaps', body: configMap('audited', {}, { chain: 'on' }) });
    expect(stored.statusCode).toBe(201);
    const annotations = (await auditEventsOf(auditLog, String(stored.headers['audit-id']))).at(-1)?.annotations ?? {};
    const calls = Object.fromEntries(
      Object.entries(annotations)
        .filter(([key]) => key.startsWith('mutation.webhook.admission.k8s.io/'))
        .map(([key, value]) => [key.slice('mutation.webhook.admission.k8s.io/'.length), JSON.parse(value) as unknown]),
    );
    expect(calls).toEqual({
      round_0_index_0: { configuration: 'a-first', webhook: 'first.chained.example.com', mutated: true },
      round_0_index_1: { configuration: 'b-second', webhook: 'second.chained.example.com', mutated: true },
      round_1_index_0: { configuration: 'a-first', webhook: 'first.chained.example.com', mutated: false },
    });
  });
});

describe('matchPolicy', () => {
  it('asks a webhook in the version its rules name (Equivalent): objects converted there and back, requestKind the request version; Exact ones only at their version', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'versions']);
    const namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': 'versions' } };
    const hpaRules = (apiVersions: string[]) => [
      { operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions, resources: ['horizontalpodautoscalers'] },
    ];
    // Registered for autoscaling/v2 only: patches v2's paths.
    handlers.set('/hpa-v2', () => ({
      allowed: true,
      patch: [
        { op: 'replace', path: '/spec/minReplicas', value: 3 },
        { op: 'add', path: '/metadata/labels', value: { converted: 'yes' } },
      ],
    }));
    await configure('Mutating', 'hpa-v2', {
      name: 'v2.hpa.example.com',
      clientConfig: { url: `${base}/hpa-v2`, caBundle },
      rules: hpaRules(['v2']),
      namespaceSelector,
    });
    await configure('Validating', 'hpa-v1-exact', {
      name: 'v1-exact.hpa.example.com',
      clientConfig: { url: `${base}/hpa-v1-exact`, caBundle },
      rules: hpaRules(['v1']),
      matchPolicy: 'Exact',
      namespaceSelector,
    });
    await configure('Validating', 'hpa-v2-exact', {
      name: 'v2-exact.hpa.example.com',
      clientConfig: { url: `${base}/hpa-v2-exact`, caBundle },
      rules: hpaRules(['v2']),
      matchPolicy: 'Exact',
      namespaceSelector,
    });
    const hpa = (name: string) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 70,
      },
    });
    const path = '/apis/autoscaling/v1/namespaces/versions/horizontalpodautoscalers';
    await until(
      'the webhooks to apply',
      () => post(path, hpa(`probe${Date.now()}`), { dryRun: 'All' }),
      (answer) => received.some((entry) => entry.path === '/hpa-v1-exact') && (answer.body['spec'] as { minReplicas?: number }).minReplicas === 3,
    );
    received.length = 0;
    const created = await post(path, hpa('web'));
    expect(created.code).toBe(201);
    // The v2 webhook's patch, converted back to the v1 the client wrote.
    expect(created.body).toMatchObject({
      apiVersion: 'autoscaling/v1',
      metadata: { labels: { converted: 'yes' } },
      spec: { minReplicas: 3, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
    });
    const asked = (path: string) => received.filter((entry) => entry.path === path).map((entry) => entry.request as AdmissionRequest & Record<string, unknown>);
    const [mutating] = asked('/hpa-v2');
    expect(mutating).toMatchObject({
      kind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
      resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
      requestKind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      requestResource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      object: {
        apiVersion: 'autoscaling/v2',
        spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] },
      },
    });
    // The Exact v1 webhook sees the request's version (the mutated object), the Exact v2 one is not asked.
    const [validating] = asked('/hpa-v1-exact');
    expect(validating).toMatchObject({
      kind: { version: 'v1' },
      requestKind: { version: 'v1' },
      object: { apiVersion: 'autoscaling/v1', spec: { minReplicas: 3, targetCPUUtilizationPercentage: 70 } },
    });
    expect(asked('/hpa-v2-exact')).toHaveLength(0);
  });
});
