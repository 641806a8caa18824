import { afterEach, describe, expect, it } from 'vitest';
import { tokenFileAuthenticator, type Filter } from '@kapi/filters';
import { startTestServer, widget, widgetsPath, type TestServer } from './test-support/test-server.js';

/** An innermost filter that holds requests carrying `x-hold` until released: they keep their seat. */
function holdingFilter() {
  const waiting: Array<() => void> = [];
  const filter: Filter = (next) => async (request, response) => {
    if (request.headers['x-hold']) await new Promise<void>((resolve) => waiting.push(resolve));
    return next(request, response);
  };
  return {
    filter,
    held: async (count: number) => {
      while (waiting.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    releaseAll: () => waiting.splice(0).forEach((release) => release()),
  };
}

const tokens = 'user-token,user,1,"developers"\nadmin-token,admin,2,"system:masters"\n';

describe('the configured handler chain under max-in-flight', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('exempts system:masters and health probes, as upstream', async () => {
    const hold = holdingFilter();
    server = await startTestServer({
      authenticators: [tokenFileAuthenticator({ content: tokens })],
      maxRequestsInFlight: 1,
      maxMutatingRequestsInFlight: 1,
      innermostFilters: [hold.filter],
    });
    const user = { Authorization: 'Bearer user-token' };
    const admin = { Authorization: 'Bearer admin-token' };
    const heldWrite = server.call('POST', widgetsPath(), widget('held'), { ...user, 'x-hold': '1' });
    const heldRead = server.call('GET', widgetsPath(), undefined, { ...user, 'x-hold': '1' });
    await hold.held(2);
    try {
      const refused = await server.call('POST', widgetsPath(), widget('refused'), user);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ reason: 'TooManyRequests' });
      expect((await server.call('GET', widgetsPath(), undefined, user)).status).toBe(429);

      expect((await server.call('POST', widgetsPath(), widget('by-admin'), admin)).status).toBe(201);
      expect((await server.call('GET', widgetsPath(), undefined, admin)).status).toBe(200);
      for (const probe of ['/healthz', '/livez', '/readyz']) {
        const response = await fetch(`${server.url}${probe}`, { headers: user });
        expect([probe, response.status, await response.text()]).toEqual([probe, 200, 'ok']);
      }
    } finally {
      hold.releaseAll();
    }
    expect((await heldWrite).status).toBe(201);
    expect((await heldRead).status).toBe(200);
  });
});

describe('the configured handler chain logs every 5xx', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('logs a forced 500 with method, path, user, status, message and stack; the client gets only the Status', async () => {
    const lines: string[] = [];
    const failing: Filter = (next) => (request, response) => {
      if (request.headers['x-fail']) throw new Error('disk on fire');
      return next(request, response);
    };
    server = await startTestServer({
      authenticators: [tokenFileAuthenticator({ content: tokens })],
      innermostFilters: [failing],
      errorLog: (line) => lines.push(line),
    });
    const headers = { Authorization: 'Bearer user-token' };
    const failed = await server.call('POST', widgetsPath(), widget('w'), { ...headers, 'x-fail': '1' });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: disk on fire' });
    expect(JSON.stringify(failed.body)).not.toContain('server-filters.test');

    expect((await server.call('GET', `${widgetsPath()}/missing`, undefined, headers)).status).toBe(404);
    expect(lines).toHaveLength(1);
    const [first, ...stack] = (lines[0] ?? '').split('\n');
    expect(first).toMatch(
      /^E\S+ "POST \/apis\/example\.com\/v1\/namespaces\/default\/widgets" user="user" status=500 error="disk on fire"$/,
    );
    expect(stack[0]).toBe('Error: disk on fire');
    expect(stack[1]).toContain('server-filters.test.ts');
  });

  it('logs a failing readyz with the failing check and its reason, which the client does not see', async () => {
    const lines: string[] = [];
    server = await startTestServer({ errorLog: (line) => lines.push(line) });
    server.server.health.addCheck('storage-readiness', () => {
      throw new Error('watch cache for widgets not ready');
    });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(500);
    expect(await ready.text()).not.toContain('watch cache for widgets');
    const one = await fetch(`${server.url}/readyz/storage-readiness`);
    await one.text();
    expect(one.status).toBe(500);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^E\S+ "GET \/readyz" user="" status=500 error="readyz check failed: storage-readiness: watch cache for widgets not ready"$/,
    );
    expect(lines[1]).toMatch(/error="readyz check storage-readiness failed: watch cache for widgets not ready"$/);
  });
});
