import type { KubeObject } from '@kapi/apimachinery';
import { RestClient } from '@kapi/client';
import { privilegedGroupsAuthorizer, tokenFileAuthenticator, type Filter } from '@kapi/filters';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from './test-support/test-server.js';

const tokens = 'user-token,user,1,"developers"\nadmin-token,admin,2,"system:masters"\n';
const admin = { authorization: 'Bearer admin-token' };

/** Holds requests carrying `x-hold` until released; counts those that saw their client go away. */
function holdingFilter() {
  const waiting: Array<() => void> = [];
  let abandoned = 0;
  const filter: Filter = (next) => async (request, response) => {
    if (!request.headers['x-hold']) return next(request, response);
    response.once('close', () => {
      if (!response.writableEnded) abandoned += 1;
    });
    await new Promise<void>((resolve) => waiting.push(resolve));
    return next(request, response);
  };
  return {
    filter,
    held: async (count: number) => {
      while (waiting.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    abandoned: () => abandoned,
    releaseAll: () => waiting.splice(0).forEach((release) => release()),
  };
}

describe('serveInProcess', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves a write through the whole chain, authenticated by its headers, and it is stored', async () => {
    server = await startTestServer({ authenticators: [tokenFileAuthenticator({ content: tokens })], authorizer: privilegedGroupsAuthorizer(['system:masters']) });
    const body = Buffer.from(JSON.stringify(widget('made-in-process')));
    const created = await server.server.serveInProcess({ method: 'POST', url: widgetsPath(), headers: { ...admin, 'content-type': 'application/json' }, body });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toMatch(/^application\/json/);
    const object = JSON.parse(created.body.toString('utf8')) as { metadata: { name: string; resourceVersion: string } };
    expect(object.metadata.name).toBe('made-in-process');

    // Seen over the network: the write really happened.
    const read = await server.call('GET', `${widgetsPath()}/made-in-process`, undefined, admin);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ metadata: { resourceVersion: object.metadata.resourceVersion } });

    // A merge patch, and its query string.
    const patched = await server.server.serveInProcess({
      method: 'PATCH',
      url: `${widgetsPath()}/made-in-process?fieldManager=tester`,
      headers: { ...admin, 'content-type': 'application/merge-patch+json' },
      body: Buffer.from('{"spec":{"size":7}}'),
    });
    expect(patched.statusCode).toBe(200);
    expect(JSON.parse(patched.body.toString('utf8'))).toMatchObject({ spec: { size: 7 }, metadata: { managedFields: expect.arrayContaining([expect.objectContaining({ manager: 'tester' })]) } });
  });

  it('refuses what the chain refuses: no token is 401, a user without the right is 403, and nothing is stored', async () => {
    server = await startTestServer({ authenticators: [tokenFileAuthenticator({ content: tokens })], authorizer: privilegedGroupsAuthorizer(['system:masters']) });
    const body = Buffer.from(JSON.stringify(widget('refused')));
    const headers = { 'content-type': 'application/json' };
    const anonymous = await server.server.serveInProcess({ method: 'POST', url: widgetsPath(), headers: { ...headers, authorization: 'Bearer wrong' }, body });
    expect(anonymous.statusCode).toBe(401);
    const forbidden = await server.server.serveInProcess({ method: 'POST', url: widgetsPath(), headers: { ...headers, authorization: 'Bearer user-token' }, body });
    expect(forbidden.statusCode).toBe(403);
    expect(JSON.parse(forbidden.body.toString('utf8'))).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect((await server.call('GET', `${widgetsPath()}/refused`, undefined, admin)).status).toBe(404);
    // Impersonation headers are read too: the admin acting as a plain user is refused as that user.
    const impersonated = await server.server.serveInProcess({ method: 'POST', url: widgetsPath(), headers: { ...headers, ...admin, 'impersonate-user': 'user' }, body });
    expect(impersonated.statusCode).toBe(403);
    expect(JSON.parse(impersonated.body.toString('utf8'))).toMatchObject({ message: expect.stringContaining('"user"') });
  });

  it('answers bad input with its Status (400 for a body that is not JSON)', async () => {
    server = await startTestServer();
    const answer = await server.server.serveInProcess({ method: 'POST', url: widgetsPath(), headers: { 'content-type': 'application/json' }, body: Buffer.from('{not json') });
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ kind: 'Status', code: 400 });
  });

  it('answers a LIST larger than one of the list writer\'s chunks with the bytes a client over the network gets', async () => {
    server = await startTestServer();
    // 80 x ~2 KB: the list writer copies items into 64 KB chunks and reuses each once its write's callback
    // has run, so the body is only whole if every chunk written with a callback was copied.
    for (let index = 0; index < 80; index++) {
      const created = await server.call('POST', widgetsPath(), widget(`w${String(index).padStart(2, '0')}`, { size: index, color: `${index}-`.repeat(700) }));
      expect(created.status).toBe(201);
    }
    const inProcess = await server.server.serveInProcess({ method: 'GET', url: widgetsPath() });
    expect(inProcess.statusCode).toBe(200);
    expect(inProcess.body.length).toBeGreaterThan(128 * 1024);
    const overNetwork = await fetch(`${server.url}${widgetsPath()}`);
    expect(inProcess.body.toString('utf8')).toBe(await overNetwork.text());
    const list = JSON.parse(inProcess.body.toString('utf8')) as { items: Array<{ metadata: { name: string }; spec: { size: number } }> };
    expect(list.items.map((item) => item.spec.size)).toEqual([...Array(80).keys()]);
  });

  it('yields to the event loop before serving, as a request over a socket does: a loop of in-process requests lets a timer run', async () => {
    server = await startTestServer();
    // Served from memory, a request could otherwise complete in microtasks alone, and a client looping
    // on such requests (a controller retrying until its informer catches up) would starve timers and I/O.
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    let served = 0;
    while (!timerRan && served < 1000) {
      const answer = await server.server.serveInProcess({ method: 'GET', url: widgetsPath() });
      expect(answer.statusCode).toBe(200);
      served++;
    }
    expect(timerRan).toBe(true);
    expect(served).toBeLessThan(1000);
  });

  it('starts one in-process request per turn of the event loop: requests sent together do not hold the loop as one', async () => {
    const started: string[] = [];
    const record: Filter = (next) => (request, response) => {
      started.push(new URL(request.url ?? '/', 'http://x').searchParams.get('n') ?? '?');
      return next(request, response);
    };
    server = await startTestServer({ innermostFilters: [record] });
    // Three requests sent at once, then an immediate of our own: node runs every immediate queued before
    // its check phase in one go, so served each on an immediate of its own, all three would start before
    // ours; one per turn, ours runs after the first and the loop turns (and polls) before each other.
    const answers = ['a', 'b', 'c'].map((n) => server!.server.serveInProcess({ method: 'GET', url: `${widgetsPath()}?n=${n}` }));
    setImmediate(() => started.push('marker'));
    for (const answer of await Promise.all(answers)) expect(answer.statusCode).toBe(200);
    expect(started).toEqual(['a', 'marker', 'b', 'c']);
  });

  it('rejects when its signal aborts, and the chain sees its client go away', async () => {
    const hold = holdingFilter();
    server = await startTestServer({ innermostFilters: [hold.filter] });
    const abort = new AbortController();
    const pending = server.server.serveInProcess({ method: 'GET', url: widgetsPath(), headers: { 'x-hold': '1' }, signal: abort.signal });
    await hold.held(1);
    abort.abort(new Error('gave up'));
    await expect(pending).rejects.toThrow('gave up');
    expect(hold.abandoned()).toBe(1);
    hold.releaseAll();
    // An already aborted signal is not sent at all.
    await expect(server.server.serveInProcess({ method: 'GET', url: widgetsPath(), signal: abort.signal })).rejects.toThrow('gave up');
  });
});

describe('a RestClient with inProcess', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends its requests through the chain in process, and its watches over the connection', async () => {
    // Every request the chain sees, and whether it came over a socket (node's request has a real one).
    const seen: Array<{ method: string; network: boolean; userAgent: string | undefined }> = [];
    const record: Filter = (next) => (request, response) => {
      seen.push({ method: request.method ?? '', network: typeof request.socket.address === 'function', userAgent: request.headers['user-agent'] });
      return next(request, response);
    };
    server = await startTestServer({ authenticators: [tokenFileAuthenticator({ content: tokens })], authorizer: privilegedGroupsAuthorizer(['system:masters']), innermostFilters: [record] });
    const running = server;
    const client = new RestClient({ server: running.url, token: 'admin-token', userAgent: 'in-process-test', inProcess: (call) => running.server.serveInProcess(call) });
    try {
      const created = await client.request<KubeObject>({ method: 'POST', path: widgetsPath(), body: widget('a') });
      const events: string[] = [];
      const watch = await client.watch({ path: widgetsPath(), query: { resourceVersion: created.metadata.resourceVersion } });
      const received = (async () => {
        for await (const event of watch) {
          events.push(`${event.type} ${(event.object as KubeObject).metadata.name ?? ''}`);
          if (events.length === 1) return;
        }
      })();
      await client.request({ method: 'PUT', path: `${widgetsPath()}/a`, body: { ...created, spec: { size: 2 } } });
      await received;
      watch.stop();
      expect(events).toEqual(['MODIFIED a']);
      expect(seen.map(({ method, network }) => `${method} ${network ? 'network' : 'in process'}`)).toEqual(['POST in process', 'GET network', 'PUT in process']);
      expect(seen.every(({ userAgent }) => userAgent === 'in-process-test')).toBe(true);
      // A non-2xx answer is thrown as its Status, as over the network.
      await expect(client.request({ method: 'GET', path: `${widgetsPath()}/missing` })).rejects.toMatchObject({ code: 404 });
    } finally {
      client.close();
    }
  });
});
