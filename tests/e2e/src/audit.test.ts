import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';
import { auditEvents, auditEventsOf, type AuditEvent } from './audit-log.js';
import { connectH2 } from './h2-client.js';

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
  - level: None
    users: ["system:apiserver"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets"]
    omitStages: ["RequestReceived"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Metadata
`;


let server: TestServer;
let admin: RestClient;
let logPath: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-'));
  const policyPath = join(dir, 'policy.yaml');
  writeFileSync(policyPath, policy);
  logPath = join(dir, 'audit.log');
  server = await startServer({ args: [`--audit-policy-file=${policyPath}`, `--audit-log-path=${logPath}`] });
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

const events = (): AuditEvent[] => auditEvents(logPath);
const eventsOf = (auditID: string): Promise<AuditEvent[]> => auditEventsOf(logPath, auditID);

const micro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('audit log', () => {
  it('records a secret create at Metadata level without its data, and sends the audit ID', async () => {
    const response = await admin.raw({
      method: 'POST',
      path: '/api/v1/namespaces/default/secrets',
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pw' }, data: { password: 'aHVudGVyMg==' } },
    });
    expect(response.statusCode).toBe(201);
    const auditID = response.headers['audit-id'];
    expect(typeof auditID).toBe('string');
    const recorded = await eventsOf(String(auditID));
    expect(recorded.map((event) => event.stage)).toEqual(['ResponseComplete']);
    const [event] = recorded;
    expect(event).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default/secrets',
      verb: 'create',
      objectRef: { resource: 'secrets', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { code: 201 },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(event?.user.groups).toContain('system:masters');
    expect(event?.sourceIPs).toContain('127.0.0.1');
    expect(event?.requestReceivedTimestamp).toMatch(micro);
    expect(event?.stageTimestamp).toMatch(micro);
    expect(event?.requestObject).toBeUndefined();
    expect(event?.responseObject).toBeUndefined();
    const log = readFileSync(logPath, 'utf8');
    expect(log).not.toContain('aHVudGVyMg==');
    expect(log).not.toContain('hunter2');
  });

  it('records a configmap create at RequestResponse level, in both stages', async () => {
    const response = await admin.raw({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' }, data: { colour: 'blue' } },
    });
    expect(response.statusCode).toBe(201);
    const uid = (JSON.parse(response.body.toString()) as { metadata: { uid: string } }).metadata.uid;
    const recorded = await eventsOf(String(response.headers['audit-id']));
    expect(recorded.map((event) => event.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = recorded;
    expect(received?.level).toBe('RequestResponse');
    expect(received?.responseStatus).toBeUndefined();
    expect(complete?.userAgent).toMatch(/\S/);
    expect(complete).toMatchObject({
      level: 'RequestResponse',
      verb: 'create',
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { code: 201 },
      requestObject: { data: { colour: 'blue' } },
      responseObject: { metadata: { uid } },
    });
  });

  it('records a failure with its Status, a watch with ResponseStarted, and skips None', async () => {
    const missing = await admin.raw({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/nope' });
    expect(missing.statusCode).toBe(404);
    const [, failed] = await eventsOf(String(missing.headers['audit-id']));
    expect(failed?.responseStatus).toMatchObject({ code: 404, status: 'Failure', reason: 'NotFound' });

    const watch = await admin.raw({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      query: { watch: 'true', timeoutSeconds: '1' },
    });
    expect(watch.statusCode).toBe(200);
    const watched = await eventsOf(String(watch.headers['audit-id']));
    expect(watched.map((event) => event.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(watched[1]).toMatchObject({ verb: 'watch', responseStatus: { code: 200 } });

    // kubectl and client-go watch over HTTP/2: the same three stages.
    const session = await connectH2(server.kubeconfig);
    try {
      const stream = session.request({ ':method': 'GET', ':path': '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1' });
      const headers = await new Promise<IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      stream.resume();
      await new Promise((resolve) => stream.once('close', resolve));
      expect(headers[':status']).toBe(200);
      const overH2 = await eventsOf(String(headers['audit-id']));
      expect(overH2.map((event) => event.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
      expect(overH2[1]).toMatchObject({ verb: 'watch', responseStatus: { code: 200 } });
    } finally {
      session.close();
    }

    const probe = await admin.raw({ method: 'GET', path: '/readyz' });
    expect(probe.statusCode).toBe(200);
    const probeID = String(probe.headers['audit-id']);
    expect(probeID).not.toBe('undefined');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events().filter((event) => event.auditID === probeID)).toEqual([]);
  });

  it("carries admission policies' audit annotations and the failures of Audit bindings", async () => {
    const create = (path: string, body: unknown) => admin.raw({ method: 'POST', path, body });
    const policies = '/apis/admissionregistration.k8s.io/v1';
    expect(
      (
        await create(`${policies}/validatingadmissionpolicies`, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: 'colours.example.com' },
          spec: {
            matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
            validations: [
              { expression: 'true' },
              { expression: "!has(object.data) || !('colour' in object.data) || object.data.colour != 'red'", message: 'red is not a colour here' },
            ],
            auditAnnotations: [
              { key: 'colour', valueExpression: "has(object.data) && 'colour' in object.data ? object.data.colour : null" },
            ],
          },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await create(`${policies}/validatingadmissionpolicybindings`, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: 'colours-audit' },
          spec: { policyName: 'colours.example.com', validationActions: ['Audit'] },
        })
      ).statusCode,
    ).toBe(201);
    const configMap = (name: string, colour: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { colour } });
    // The policy applies within moments of its creation.
    let annotations: Record<string, string> | undefined;
    for (let attempt = 0; attempt < 50 && !annotations?.['colours.example.com/colour']; attempt++) {
      const probe = await create('/api/v1/namespaces/default/configmaps', configMap(`probe-${attempt}`, 'green'));
      annotations = (await eventsOf(String(probe.headers['audit-id']))).at(-1)?.annotations;
      if (!annotations?.['colours.example.com/colour']) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(annotations?.['colours.example.com/colour']).toBe('green');
    expect(annotations?.['validation.policy.admission.k8s.io/validation_failure']).toBeUndefined();
    // Audit alone does not refuse: the red one is stored, and its failure recorded.
    const red = await create('/api/v1/namespaces/default/configmaps', configMap('red', 'red'));
    expect(red.statusCode).toBe(201);
    const [, complete] = await eventsOf(String(red.headers['audit-id']));
    expect(complete?.annotations?.['colours.example.com/colour']).toBe('red');
    expect(JSON.parse(complete?.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? '[]')).toEqual([
      {
        message: 'red is not a colour here',
        policy: 'colours.example.com',
        binding: 'colours-audit',
        expressionIndex: 1,
        validationActions: ['Audit'],
      },
    ]);
  });
});
