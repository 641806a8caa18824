import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, type RestClient } from '@kapi/client';
import { startAggregatedServer, type TestAggregatedServer } from './aggregated-server.js';
import { auditEvents } from './audit-log.js';
import { httpsCall } from './https-call.js';
import { kubectl, startServer, type TestServer } from './harness.js';
import { bindClusterRole } from './rbac-session.js';

// The whole aggregation path as a user sees it: the wardle sample server (its dist, registering itself
// and reading the main server's extension-apiserver-authentication ConfigMap) reached through
// kube-apiserver-lite's aggregator proxy with kubectl, RBAC decided by the main server, and the
// APIService going unavailable (503) and back when the aggregated server stops and restarts.
let workDir: string;
let main: TestServer;
let admin: RestClient;
let wardle: TestAggregatedServer;
let wardleDataDir: string;
let auditLog: string;

const flunders = '/apis/wardle.example.com/v1beta1/namespaces/default/flunders';
const apiService = 'v1beta1.wardle.example.com';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

async function availableCondition(): Promise<Condition | undefined> {
  const object = await admin.request<{ status?: { conditions?: Condition[] } }>({
    method: 'GET',
    path: `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`,
  });
  return object.status?.conditions?.find((condition) => condition.type === 'Available');
}

/** Polls the APIService's Available condition until it has `status` (20 s: the check interval is 1 s). */
async function waitForAvailable(status: 'True' | 'False'): Promise<Condition> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const condition = await availableCondition();
    if (condition?.status === status) return condition;
    if (Date.now() > deadline) throw new Error(`Available never became ${status}: ${JSON.stringify(condition)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The aggregated server's `apiserver_registered_watchers` gauge for Flunders, read from its own /metrics
 * with the main server's admin credentials (it authenticates them through the main server).
 */
async function flunderWatchers(): Promise<number> {
  const { cert, key, token } = loadKubeconfig(main.kubeconfig);
  const answer = await httpsCall(wardle.url, 'GET', '/metrics', { ca: wardle.ca, ...(cert && key ? { cert, key } : {}), ...(token ? { token } : {}) });
  expect(answer.code).toBe(200);
  return Number(/^apiserver_registered_watchers\{group="wardle\.example\.com",version="v1beta1",kind="Flunder"\} (\d+)$/m.exec(answer.text)?.[1] ?? 0);
}

/** A request to the main server with a bearer token (the caller is who the token names). */
function asUser(token: string, method: string, path: string, body?: unknown) {
  const { ca } = loadKubeconfig(main.kubeconfig);
  return httpsCall(main.url, method, path, { ca: ca ?? '', token, ...(body === undefined ? {} : { body }) });
}

/** Repeats `attempt` until it answers `code` (RBAC changes reach the authorizer by watch). */
async function until(code: number, attempt: () => ReturnType<typeof asUser>) {
  const deadline = Date.now() + 10_000;
  let answer = await attempt();
  while (answer.code !== code && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await attempt();
  }
  return answer;
}

const flunderYaml = (name: string, reference: string) => `apiVersion: wardle.example.com/v1beta1
kind: Flunder
metadata:
  name: ${name}
  namespace: default
spec:
  referenceType: Flunder
  flunderReference: ${reference}
`;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kapi-aggregation-'));
  const tokens = join(workDir, 'tokens.csv');
  writeFileSync(tokens, 'alice-token,alice,2001\nbob-token,bob,2002\n');
  // The main server audits the SubjectAccessReviews the aggregated server sends (with their spec).
  const policy = join(workDir, 'audit-policy.yaml');
  writeFileSync(
    policy,
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Request\n    resources:\n      - group: authorization.k8s.io\n        resources: ["subjectaccessreviews"]\n  - level: None\n',
  );
  auditLog = join(workDir, 'audit.log');
  main = await startServer({
    args: [`--token-auth-file=${tokens}`, '--apiservice-availability-interval=1s', `--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`],
  });
  admin = main.client();
  wardleDataDir = join(workDir, 'wardle');
  wardle = await startAggregatedServer(main, { dataDir: wardleDataDir });
  await bindClusterRole(admin, 'alice-wardle-admin', 'wardle-admin', { kind: 'User', name: 'alice' });
  await waitForAvailable('True');
}, 180_000);

afterAll(async () => {
  await wardle?.stop();
  await main?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('an aggregated server behind kube-apiserver-lite', () => {
  it('kubectl get apiservices shows the self-registered APIService Available', async () => {
    const out = await kubectl(main, ['get', 'apiservices', apiService]);
    expect(out).toMatch(new RegExp(`${apiService}\\s+wardle-system/api\\s+True`));
  });

  it('kubectl creates, applies, lists, watches and deletes flunders through the proxy', async () => {
    await kubectl(main, ['create', '-f', '-'], flunderYaml('one', 'first'));
    await kubectl(main, ['apply', '--server-side', '-f', '-'], flunderYaml('two', 'second'));
    const table = await kubectl(main, ['get', 'flunders']);
    expect(table).toMatch(/NAME\s+REFERENCE-TYPE/);
    expect(table).toMatch(/^one\s+Flunder\s+first/m);
    expect(table).toMatch(/^two\s+Flunder\s+second/m);
    // The object is stored by the aggregated server, not the main one: v1alpha1 is served by conversion.
    const alpha = JSON.parse(await kubectl(main, ['get', '--raw', '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/one'])) as {
      spec: Record<string, unknown>;
    };
    expect(alpha.spec).toMatchObject({ reference: 'first', referenceType: 'Flunder' });

    const watcher = spawn(process.env.KUBECTL ?? 'kubectl', ['--kubeconfig', main.kubeconfig, 'get', 'flunders', '--watch', '-o', 'name'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    let errors = '';
    watcher.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const sawThree = new Promise<void>((resolve) => {
      watcher.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/flunder\.wardle\.example\.com\/three/.test(seen)) resolve();
      });
    });
    try {
      // The initial ADDED events arrive first; then a new object is streamed while the watch stays open.
      const deadline = Date.now() + 15_000;
      while (!/flunder\.wardle\.example\.com\/two/.test(seen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await kubectl(main, ['create', '-f', '-'], flunderYaml('three', 'third'));
      await Promise.race([sawThree, new Promise((_, reject) => setTimeout(() => reject(new Error(`watch saw: ${seen} ${errors} ${watcher.exitCode}`)), 20_000))]);
      expect(watcher.exitCode).toBeNull();
      expect(await flunderWatchers()).toBe(1);
    } finally {
      watcher.kill();
    }
    // kubectl gone, the proxy cancels its request to the aggregated server, which ends the watch.
    await expect.poll(flunderWatchers, { timeout: 10_000 }).toBe(0);
    await kubectl(main, ['delete', 'flunder', 'three']);
    expect(await kubectl(main, ['get', 'flunders', '-o', 'name'])).not.toContain('three');
  }, 60_000);

  it('kubectl explain and api-resources describe the aggregated resources', async () => {
    const resources = await kubectl(main, ['api-resources', '--api-group=wardle.example.com', '--no-headers']);
    expect(resources).toMatch(/^flunders\s+wardle\.example\.com\/v1beta1\s+true\s+Flunder/m);
    expect(resources).toMatch(/^fischers\s+wardle\.example\.com\/v1beta1\s+false\s+Fischer/m);
    const explain = await kubectl(main, ['explain', 'flunders.spec']);
    expect(explain).toMatch(/KIND:\s+Flunder/);
    expect(explain).toContain('referenceType');
  });

  it('merges the aggregated server into /openapi/v2: kubectl explain reads it (protobuf) and the JSON lists its paths', async () => {
    const explain = await kubectl(main, ['explain', 'flunders.spec', '--output=plaintext-openapiv2']);
    expect(explain).toMatch(/KIND:\s+Flunder/);
    expect(explain).toMatch(/VERSION:\s+wardle\.example\.com\/v1beta1/);
    expect(explain).toContain('flunderReference');
    const alpha = await kubectl(main, ['explain', 'flunders.spec', '--output=plaintext-openapiv2', '--api-version=wardle.example.com/v1alpha1']);
    expect(alpha).toContain('referenceType');
    const swagger = JSON.parse(await kubectl(main, ['get', '--raw', '/openapi/v2'])) as {
      paths: Record<string, unknown>;
      definitions: Record<string, { 'x-kubernetes-group-version-kind'?: unknown[] }>;
    };
    expect(Object.keys(swagger.paths)).toContain('/apis/wardle.example.com/v1beta1/namespaces/{namespace}/flunders/{name}');
    expect(Object.keys(swagger.paths)).toContain('/api/v1/namespaces/{namespace}/configmaps');
    const kinds = Object.values(swagger.definitions).flatMap((definition) => definition['x-kubernetes-group-version-kind'] ?? []);
    expect(kinds).toContainEqual({ group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' });
  });

  it('kubectl apply validates wardle kinds: an unknown field is refused and nothing is stored; a valid one is applied', async () => {
    const bogus = `${flunderYaml('validated', 'first')}  bogusField: 1\n`;
    await expect(kubectl(main, ['apply', '-f', '-'], bogus)).rejects.toThrow(/bogusField/);
    expect(await kubectl(main, ['get', 'flunders', '-o', 'name'])).not.toContain('validated');
    await kubectl(main, ['apply', '-f', '-'], flunderYaml('validated', 'first'));
    expect(await kubectl(main, ['get', 'flunder', 'validated', '-o', 'jsonpath={.spec.flunderReference}'])).toBe('first');
    await kubectl(main, ['delete', 'flunder', 'validated']);
  });

  it("the main server's RBAC decides: a user without a role gets 403 from the aggregated server", async () => {
    const allowed = await until(200, () => asUser('alice-token', 'GET', flunders));
    expect(allowed.code).toBe(200);
    expect((allowed.body.items as unknown[]).length).toBeGreaterThanOrEqual(2);
    const refused = await asUser('bob-token', 'GET', flunders);
    expect(refused.code).toBe(403);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(refused.body.message).toBe(
      'flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"',
    );
    const create = await asUser('bob-token', 'POST', flunders, {
      apiVersion: 'wardle.example.com/v1beta1',
      kind: 'Flunder',
      metadata: { name: 'bobs' },
      spec: {},
    });
    expect(create.code).toBe(403);
    expect((await asUser('alice-token', 'GET', `${flunders}/bobs`)).code).toBe(404);
  });

  it("passes the caller's UID as X-Remote-Uid: the aggregated server's SubjectAccessReview for a token user carries it", async () => {
    expect((await until(200, () => asUser('alice-token', 'GET', `${flunders}?limit=1`))).code).toBe(200);
    const reviews = () =>
      auditEvents(auditLog)
        .map((event) => (event.requestObject as { spec?: { user?: string; uid?: string } } | undefined)?.spec)
        .filter((spec) => spec?.user === 'alice');
    const deadline = Date.now() + 5_000;
    while (reviews().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reviews().length).toBeGreaterThan(0);
    // The token file gives alice UID 2001; the aggregated server read it from X-Remote-Uid (named in the ConfigMap).
    expect(reviews().every((spec) => spec?.uid === '2001')).toBe(true);
  });

  it('goes unavailable (503 for its group only) when the aggregated server stops, and comes back', async () => {
    await wardle.stop();
    const down = await waitForAvailable('False');
    expect(down.reason).toMatch(/FailedDiscoveryCheck|MissingEndpoints|EndpointsNotFound/);
    const refused = await asUser('alice-token', 'GET', flunders);
    expect(refused.code).toBe(503);
    // As kube-aggregator's proxyError: a plain-text body, not a Status.
    expect(refused.text).toBe('service unavailable\n');
    // Everything else keeps working, discovery included.
    expect((await admin.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces' })).items.length).toBeGreaterThan(0);
    const groups = JSON.parse(await kubectl(main, ['get', '--raw', '/apis'])) as { groups: Array<{ name: string }> };
    expect(groups.groups.map((g) => g.name)).toContain('rbac.authorization.k8s.io');
    await expect(kubectl(main, ['get', 'configmaps', '-A'])).resolves.toBeTypeOf('string');

    wardle = await startAggregatedServer(main, { dataDir: wardleDataDir });
    await waitForAvailable('True');
    const back = await until(200, () => asUser('alice-token', 'GET', `${flunders}/one`));
    expect(back.code).toBe(200);
    expect(back.body).toMatchObject({ metadata: { name: 'one' }, spec: { flunderReference: 'first' } });
  }, 90_000);

  it('publishes StorageVersions for its resources on the main server', async () => {
    const storageVersion = await admin.request<{ status: { storageVersions?: Array<{ encodingVersion: string }>; commonEncodingVersion?: string } }>({
      method: 'GET',
      path: '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/wardle.example.com.flunders',
    });
    expect(storageVersion.status.commonEncodingVersion).toBe('wardle.example.com/v1beta1');
    expect(storageVersion.status.storageVersions?.map((entry) => entry.encodingVersion)).toContain('wardle.example.com/v1beta1');
  });
});
