import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, type RestResponse } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';
import { bindClusterRole } from './rbac-session.js';
import { auditEvents, auditEventsOf, type AuditEvent } from './audit-log.js';

// A None rule for system:unauthenticated comes first: a request that failed authentication has no user,
// so it must not match it (upstream evaluates the policy without a user).
const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    userGroups: ["system:unauthenticated"]
  - level: None
    users: ["system:apiserver"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets"]
    omitStages: ["ResponseStarted"]
  - level: Request
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Metadata
`;


let server: TestServer;
let logPath: string;
let bob: RestClient;
let stranger: RestClient;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-refusals-'));
  const policyPath = join(dir, 'policy.yaml');
  writeFileSync(policyPath, policy);
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'bob-token,bob,1001,"developers"\n');
  logPath = join(dir, 'audit.log');
  server = await startServer({
    args: [
      `--audit-policy-file=${policyPath}`,
      `--audit-log-path=${logPath}`,
      `--token-auth-file=${tokens}`,
      '--max-mutating-requests-inflight=1',
    ],
  });
  const admin = server.client();
  // bob may do anything through RBAC, but is not in system:masters: max-in-flight applies to him.
  await bindClusterRole(admin, 'bob-admin', 'cluster-admin', { kind: 'User', name: 'bob' });
  const ca = admin.config.ca;
  bob = new RestClient({ server: server.url, token: 'bob-token', ...(ca ? { ca } : {}) });
  stranger = new RestClient({ server: server.url, token: 'not-a-token', ...(ca ? { ca } : {}) });
});

afterAll(async () => {
  bob?.close();
  stranger?.close();
  await server?.stop();
});

const events = (): AuditEvent[] => auditEvents(logPath);
const eventsOf = (auditID: string, stage: string): Promise<AuditEvent[]> => auditEventsOf(logPath, auditID, stage);

const auditIDOf = (response: RestResponse): string => {
  const id = response.headers['audit-id'];
  if (typeof id !== 'string' || id === '') throw new Error('the response has no Audit-ID header');
  return id;
};

describe('audit of refused requests', () => {
  it('a request with a bad token (401) is audited at ResponseStarted, with no user and the methods tried', async () => {
    const response = await stranger.raw({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    expect(response.statusCode).toBe(401);
    const recorded = await eventsOf(auditIDOf(response), 'ResponseStarted');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      level: 'Request',
      stage: 'ResponseStarted',
      requestURI: '/api/v1/namespaces/default/configmaps',
      verb: 'list',
      user: {},
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 },
    });
    expect(recorded[0]?.user).toEqual({});
    expect(recorded[0]?.sourceIPs).toContain('127.0.0.1');
  });

  it("a 401 is not audited when the matching rule omits ResponseStarted", async () => {
    const response = await stranger.raw({ method: 'GET', path: '/api/v1/namespaces/default/secrets' });
    expect(response.statusCode).toBe(401);
    const auditID = auditIDOf(response);
    // A later audited request shows the log has caught up.
    const marker = await stranger.raw({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    await eventsOf(auditIDOf(marker), 'ResponseStarted');
    expect(events().filter((event) => event.auditID === auditID)).toEqual([]);
  });

  it('a write refused by max-in-flight (429) is audited with its Status', async () => {
    let refused: RestResponse | undefined;
    for (let round = 0; round < 20 && !refused; round++) {
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          bob.raw({
            method: 'POST',
            path: '/api/v1/namespaces/default/configmaps',
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `burst-${round}-${index}` } },
          }),
        ),
      );
      refused = responses.find((response) => response.statusCode === 429);
    }
    if (!refused) throw new Error('no write was refused by max-in-flight');
    const recorded = await eventsOf(auditIDOf(refused), 'ResponseComplete');
    expect(recorded.map((event) => event.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(recorded[1]).toMatchObject({
      level: 'Request',
      verb: 'create',
      user: { username: 'bob' },
      responseStatus: {
        code: 429,
        status: 'Failure',
        reason: 'TooManyRequests',
        message: 'Too many requests, please try again later.',
      },
    });
  });
});
