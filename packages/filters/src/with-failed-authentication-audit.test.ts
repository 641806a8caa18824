import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain } from './handler.js';
import type { AuditEvent } from './audit-event.js';
import type { AuditPolicy } from './audit-policy.js';
import { withAuthentication } from './with-authentication.js';
import { withFailedAuthenticationAudit } from './with-failed-authentication-audit.js';
import { withRequestInfo } from './with-request-info.js';
import { okHandler, serve, type TestServer } from './test-support.js';

describe('withFailedAuthenticationAudit', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(policy: AuditPolicy, events: AuditEvent[]) {
    const failed = withFailedAuthenticationAudit({ policy, sink: { write: (event) => events.push(event) } });
    const rejectAll = () => {
      throw new Error('bad credentials');
    };
    server = await serve(
      buildHandlerChain([withRequestInfo(), withAuthentication({ authenticators: [rejectAll], failed })], okHandler()),
    );
    return server;
  }

  it.each([
    [{ authorization: 'Bearer nope' }, '', 'Authentication failed, attempted: bearer'],
    [{ authorization: 'Basic Ym9iOnB3' }, '', 'Authentication failed, attempted: basic'],
    [{}, '?access_token=abc', 'Authentication failed, attempted: access_token'],
    [{}, '', 'Authentication failed, no credentials provided'],
  ])('headers %j%s -> 401 and one ResponseStarted event saying %j', async (headers, query, message) => {
    const events: AuditEvent[] = [];
    const { send } = await start({ rules: [{ level: 'Metadata' }] }, events);
    const response = await send(`/api/v1/namespaces/default/pods${query}`, { headers });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      level: 'Metadata',
      auditID: response.headers['audit-id'],
      stage: 'ResponseStarted',
      verb: 'list',
      user: {},
      objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, message, code: 401 },
    });
  });

  it('writes nothing at level None, when ResponseStarted is omitted, or for user rules', async () => {
    const events: AuditEvent[] = [];
    const policy: AuditPolicy = {
      rules: [
        { level: 'RequestResponse', users: [''] },
        { level: 'RequestResponse', userGroups: ['system:unauthenticated'] },
        { level: 'Metadata', resources: [{ group: '', resources: ['secrets'] }], omitStages: ['ResponseStarted'] },
        { level: 'None' },
      ],
    };
    const { send } = await start(policy, events);
    expect((await send('/api/v1/namespaces/default/pods', { headers: { authorization: 'Bearer x' } })).status).toBe(401);
    expect((await send('/api/v1/namespaces/default/secrets', { headers: { authorization: 'Bearer x' } })).status).toBe(401);
    expect(events).toEqual([]);
  });
});
