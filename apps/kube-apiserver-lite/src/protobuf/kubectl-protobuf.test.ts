/**
 * Real kubectl request bodies: kubectl sends `application/vnd.kubernetes.protobuf` for imperative
 * commands on built-in kinds. A tiny HTTP server records the body of the first POST, decodes it with
 * the built-in registry and answers 201 with the decoded JSON (so kubectl finishes normally).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProtobufMediaType, type KubeObject } from '@kapi/apimachinery';
import { createBuiltInProtobufRegistry } from './built-in-protobuf-registry.js';

/** What the capture server saw for the first POST. */
interface CapturedRequest {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
  decoded?: KubeObject;
  decodeError?: string;
}

const registry = createBuiltInProtobufRegistry();

const groupVersion = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });
const resource = (name: string, kind: string) => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced: true,
  kind,
  verbs: ['create', 'get'],
});

/** Minimal discovery and one Deployment, so kubectl can map resources and `kubectl autoscale` finds its target. */
const documents: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
  '/apis': {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      { name: 'apps', versions: [groupVersion('apps', 'v1')], preferredVersion: groupVersion('apps', 'v1') },
      {
        name: 'autoscaling',
        versions: [groupVersion('autoscaling', 'v2'), groupVersion('autoscaling', 'v1')],
        preferredVersion: groupVersion('autoscaling', 'v2'),
      },
    ],
  },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [resource('pods', 'Pod'), resource('configmaps', 'ConfigMap')],
  },
  '/apis/apps/v1': {
    kind: 'APIResourceList',
    groupVersion: 'apps/v1',
    resources: [
      resource('deployments', 'Deployment'),
      {
        name: 'deployments/scale',
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get'],
      },
    ],
  },
  '/apis/autoscaling/v1': {
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v1',
    resources: [resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler')],
  },
  '/apis/autoscaling/v2': {
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v2',
    resources: [resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler')],
  },
  '/apis/apps/v1/namespaces/default/deployments/web': {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  },
};

function findKubectl(): string | undefined {
  const candidates = [
    process.env['KUBECTL'],
    ...(process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'kubectl')),
    '/usr/bin/kubectl',
  ];
  return candidates.find((candidate): candidate is string => {
    if (!candidate) return false;
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

let workDir = '';
let kubectlPath = '';

beforeAll(() => {
  const found = findKubectl();
  if (!found) {
    throw new Error(
      'kubectl was not found (looked at $KUBECTL, $PATH and /usr/bin/kubectl): install it with scripts/ensure-deps.sh --with-test-tools',
    );
  }
  kubectlPath = found;
  workDir = mkdtempSync(join(tmpdir(), 'kapi-kubectl-protobuf-'));
  writeFileSync(join(workDir, 'greeting.txt'), 'hello\n');
  writeFileSync(join(workDir, 'blob.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x62]));
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function sendJson(response: ServerResponse, code: number, value: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Runs kubectl against a capture server; returns its output and the first POST it made, if any. */
async function runKubectl(
  args: string[],
): Promise<{ captured: CapturedRequest | undefined; output: string }> {
  let captured: CapturedRequest | undefined;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      if (request.method === 'POST' && !captured) {
        captured = {
          method: 'POST',
          path,
          contentType: request.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
        };
        try {
          const decoded = registry.decode(captured.body);
          captured.decoded = decoded;
          const reply: Record<string, unknown> = {
            ...decoded,
            metadata: { ...decoded.metadata, uid: 'uid-1', resourceVersion: '1' },
          };
          if (decoded.kind === 'SelfSubjectAccessReview') reply['status'] = { allowed: true };
          if (decoded.kind === 'SelfSubjectReview') reply['status'] = { userInfo: { username: 'kate', groups: ['devs', 'system:authenticated'] } };
          if (decoded.kind === 'SelfSubjectRulesReview') {
            reply['status'] = {
              resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
              nonResourceRules: [],
              incomplete: false,
            };
          }
          sendJson(response, 201, reply);
        } catch (error) {
          captured.decodeError = String(error);
          sendJson(response, 500, {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: String(error),
            code: 500,
          });
        }
        return;
      }
      const document = documents[path];
      if (request.method === 'GET' && document) return sendJson(response, 200, document);
      sendJson(response, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        message: 'not found',
        code: 404,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(workDir, `kubeconfig-${port}`);
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: capture',
      `  cluster: {server: "http://127.0.0.1:${port}"}`,
      'users:',
      '- name: tester',
      '  user: {token: test-token}',
      'contexts:',
      '- name: capture',
      '  context: {cluster: capture, user: tester, namespace: default}',
      'current-context: capture',
      '',
    ].join('\n'),
  );
  try {
    const output = await new Promise<string>((resolve) => {
      execFile(
        kubectlPath,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(workDir, 'cache'), ...args],
        { cwd: workDir, env: { ...process.env, HOME: workDir }, timeout: 15_000 },
        (error, stdout, stderr) => resolve(`${stdout}${stderr}${error ? `\n(exit: ${error.message})` : ''}`),
      );
    });
    return { captured, output };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Runs kubectl and returns the first POST it made, decoded. */
async function captureKubectl(args: string[]): Promise<{ captured: CapturedRequest; output: string }> {
  const { captured, output } = await runKubectl(args);
  if (!captured) throw new Error(`kubectl made no POST request; output:\n${output}`);
  if (captured.decodeError) throw new Error(`decoding kubectl's body failed: ${captured.decodeError}`);
  return { captured, output };
}

/** Drops null-valued properties (Go's JSON writes zero times as null; the protobuf decoder omits them). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => entry !== null)
      .map(([key, entry]) => [key, withoutNulls(entry)]),
  );
}

function base64(text: string | Buffer): string {
  return Buffer.from(text).toString('base64');
}

describe('decoding protobuf bodies sent by real kubectl', () => {
  it('create configmap (data from literals and files, binaryData from non-UTF-8 files)', async () => {
    const { captured, output } = await captureKubectl([
      'create',
      'configmap',
      'settings',
      '--from-literal=a=b',
      '--from-file=greeting.txt',
      '--from-file=blob.bin',
    ]);
    expect(isProtobufMediaType(captured.contentType)).toBe(true);
    expect(captured.body.subarray(0, 4)).toEqual(Buffer.from('k8s\0', 'binary'));
    expect(captured.path).toBe('/api/v1/namespaces/default/configmaps');
    expect(captured.decoded).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { a: 'b', 'greeting.txt': 'hello\n' },
      binaryData: { 'blob.bin': base64(Buffer.from([0xff, 0xfe, 0x00, 0x62])) },
    });
    expect(output).toContain('configmap/settings created');
  });

  it('create secret generic (data as base64, type)', async () => {
    const { captured } = await captureKubectl([
      'create',
      'secret',
      'generic',
      'token',
      '--from-literal=user=admin',
      '--from-literal=empty=',
    ]);
    expect(captured.path).toBe('/api/v1/namespaces/default/secrets');
    expect(captured.decoded).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'token' },
      data: { user: base64('admin'), empty: '' },
    });
  });

  it('create namespace (empty spec and status are kept, as in JSON)', async () => {
    const { captured, output } = await captureKubectl(['create', 'namespace', 'team-a']);
    expect(captured.path).toBe('/api/v1/namespaces');
    expect(captured.decoded).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
      spec: {},
      status: {},
    });
    expect(output).toContain('namespace/team-a created');
  });

  it('create serviceaccount', async () => {
    const { captured } = await captureKubectl(['create', 'serviceaccount', 'robot']);
    expect(captured.path).toBe('/api/v1/namespaces/default/serviceaccounts');
    expect(captured.decoded).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot' },
    });
  });

  it('create token (TokenRequest)', async () => {
    const { captured } = await captureKubectl(['create', 'token', 'robot', '--duration=2h', '--audience=vault']);
    expect(captured.path).toBe('/api/v1/namespaces/default/serviceaccounts/robot/token');
    expect(captured.decoded).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: ['vault'], expirationSeconds: 7200 },
    });
  });

  it('create clusterrole (policy rules)', async () => {
    const { captured, output } = await captureKubectl([
      'create',
      'clusterrole',
      'pod-reader',
      '--verb=get,list',
      '--resource=pods',
    ]);
    expect(captured.path).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles');
    expect(captured.decoded).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'pod-reader' },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    });
    expect(output).toContain('clusterrole.rbac.authorization.k8s.io/pod-reader created');
  });

  it('create role with resource names', async () => {
    const { captured } = await captureKubectl([
      'create',
      'role',
      'cm-reader',
      '--verb=get',
      '--resource=configmaps',
      '--resource-name=settings',
    ]);
    expect(captured.path).toBe('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles');
    expect(captured.decoded).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-reader' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }],
    });
  });

  it('create rolebinding (subjects and roleRef)', async () => {
    const { captured } = await captureKubectl([
      'create',
      'rolebinding',
      'bob-view',
      '--clusterrole=view',
      '--user=bob',
    ]);
    expect(captured.path).toBe('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings');
    expect(captured.decoded).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bob-view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
  });

  it('create clusterrolebinding (group and service account subjects)', async () => {
    const { captured } = await captureKubectl([
      'create',
      'clusterrolebinding',
      'readers',
      '--clusterrole=view',
      '--group=devs',
      '--serviceaccount=default:robot',
    ]);
    expect(captured.decoded).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'readers' },
      subjects: [
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
  });

  it('auth can-i (SelfSubjectAccessReview)', async () => {
    const { captured, output } = await captureKubectl(['auth', 'can-i', 'create', 'pods']);
    expect(captured.path).toBe('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews');
    expect(captured.decoded).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: { allowed: false },
    });
    expect(output.trim()).toBe('yes');
  });

  it('auth whoami (SelfSubjectReview)', async () => {
    const { captured, output } = await captureKubectl(['auth', 'whoami']);
    expect(captured.path).toBe('/apis/authentication.k8s.io/v1/selfsubjectreviews');
    expect(isProtobufMediaType(captured.contentType)).toBe(true);
    expect(captured.decoded).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
    expect(output).toMatch(/Username\s+kate/);
    expect(output).toMatch(/Groups\s+\[devs system:authenticated\]/);
  });

  it('auth can-i for a non-resource URL', async () => {
    const { captured } = await captureKubectl(['auth', 'can-i', 'get', '/logs']);
    expect(captured.decoded).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { nonResourceAttributes: { path: '/logs', verb: 'get' } },
      status: { allowed: false },
    });
  });

  it('auth can-i --list (SelfSubjectRulesReview)', async () => {
    const { captured, output } = await captureKubectl(['auth', 'can-i', '--list', '--namespace=team-a']);
    expect(captured.path).toBe('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews');
    expect(captured.decoded).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: { namespace: 'team-a' },
      status: { incomplete: false },
    });
    expect(output).toMatch(/pods\s+\[\]\s+\[\]\s+\[get\]/);
  });

  it('autoscale deployment (autoscaling/v1 HorizontalPodAutoscaler)', async () => {
    const { captured, output } = await captureKubectl([
      'autoscale',
      'deployment',
      'web',
      '--min=2',
      '--max=5',
      '--cpu-percent=80',
    ]);
    expect(captured.path).toBe('/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers');
    expect(captured.decoded).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 80,
      },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
    expect(output).toContain('horizontalpodautoscaler.autoscaling/web autoscaled');
  });

  it.each([
    [
      'create',
      'configmap',
      'settings',
      '--from-literal=a=b',
      '--from-file=greeting.txt',
      '--from-file=blob.bin',
    ],
    ['create', 'secret', 'generic', 'token', '--from-literal=user=admin', '--type=Opaque'],
    ['create', 'namespace', 'team-a'],
    ['create', 'serviceaccount', 'robot'],
    ['create', 'clusterrole', 'aggregate', '--aggregation-rule=rbac.example.com/aggregate=true'],
    [
      'create',
      'clusterrole',
      'urls',
      '--verb=get',
      '--non-resource-url=/healthz',
      '--non-resource-url=/logs/*',
    ],
    ['create', 'role', 'cm-reader', '--verb=get', '--resource=configmaps', '--resource-name=settings'],
    [
      'create',
      'rolebinding',
      'bob-edit',
      '--role=editor',
      '--user=bob',
      '--group=ops',
      '--serviceaccount=kube-system:robot',
    ],
    ['autoscale', 'deployment', 'web', '--max=3', '--name=web-hpa'],
  ])('decodes exactly what kubectl would send as JSON: %s %s %s', async (...args: string[]) => {
    const { captured } = await captureKubectl(args);
    const { output } = await runKubectl([...args, '--dry-run=client', '-o', 'json']);
    expect(captured.decoded).toEqual(withoutNulls(JSON.parse(output)));
  });
});
