import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, writeJson, type Filter, type Handler } from './handler.js';
import type { AuditEvent } from './audit-event.js';
import { withAudit } from './with-audit.js';
import { withRequestInfo } from './with-request-info.js';
import { withAuthorization } from './with-authorization.js';
import { serve, type TestServer } from './test-support.js';

const alice = { name: 'alice', uid: '7', groups: ['devs'] };

/** Stands in for authentication: the request's user is alice. */
const asAlice: Filter = (next) => (request, response) => {
  requestContext(request).user = alice;
  return next(request, response);
};

/** Stands in for impersonation after audit: `x-as` replaces the user. */
const impersonate: Filter = (next) => (request, response) => {
  const as = request.headers['x-as'];
  if (typeof as === 'string') requestContext(request).user = { name: as, groups: ['system:authenticated'] };
  return next(request, response);
};

const handler: Handler = (request, response) => {
  if (request.headers['x-panic']) throw new Error('boom');
  writeJson(response, 200, { kind: 'ConfigMap' });
};

describe('withAudit', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function start(events: AuditEvent[]) {
    const audit = withAudit({ policy: { rules: [{ level: 'Metadata' }] }, sink: { write: (event) => events.push(event) } });
    return serve(buildHandlerChain([withRequestInfo(), asAlice, audit, impersonate], handler));
  }

  it('records the authenticated user and the impersonated one, and keeps the client\'s Audit-ID', async () => {
    const events: AuditEvent[] = [];
    server = await start(events);
    const response = await server.send('/api/v1/namespaces/a/configmaps/c', {
      headers: { 'x-as': 'bob', 'Audit-ID': 'given-id' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['audit-id']).toBe('given-id');
    expect(events.map((event) => event.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(events[1]).toMatchObject({
      auditID: 'given-id',
      verb: 'get',
      user: { username: 'alice', uid: '7', groups: ['devs'] },
      impersonatedUser: { username: 'bob', groups: ['system:authenticated'] },
      objectRef: { resource: 'configmaps', namespace: 'a', name: 'c', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
    });
  });

  it('writes a Panic event when the handler throws', async () => {
    const events: AuditEvent[] = [];
    server = await start(events);
    const response = await server.send('/api/v1/namespaces/a/configmaps/c', { headers: { 'x-panic': '1' } });
    expect(response.status).toBe(599); // the test server's answer to a rejected handler
    expect(events.map((event) => event.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(events[1]?.impersonatedUser).toBeUndefined();
    expect(events[1]?.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: "APIServer panic'd: boom",
      code: 500,
    });
  });

  it("annotates the event with the authorizer's decision and reason, and with other filters' annotations", async () => {
    const events: AuditEvent[] = [];
    const audit = withAudit({ policy: { rules: [{ level: 'Metadata' }] }, sink: { write: (event) => events.push(event) } });
    const authorization = withAuthorization({
      authorizer: {
        authorize: (attributes) =>
          attributes.namespace === 'open' ? { decision: 'allow', reason: 'open namespace' } : { decision: 'noOpinion', reason: 'closed namespace' },
      },
    });
    const annotate: Filter = (next) => (request, response) => {
      requestContext(request).auditAnnotations['example.com/note'] = 'seen';
      return next(request, response);
    };
    server = await serve(buildHandlerChain([withRequestInfo(), asAlice, audit, authorization, annotate], handler));
    expect((await server.send('/api/v1/namespaces/open/configmaps/c')).status).toBe(200);
    expect((await server.send('/api/v1/namespaces/closed/configmaps/c')).status).toBe(403);
    const completed = events.filter((event) => event.stage === 'ResponseComplete');
    expect(completed.map((event) => event.annotations)).toEqual([
      { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'open namespace', 'example.com/note': 'seen' },
      { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'closed namespace' },
    ]);
    // Received before authorization: nothing to annotate yet.
    expect(events.filter((event) => event.stage === 'RequestReceived').map((event) => event.annotations)).toEqual([undefined, undefined]);
  });
});
