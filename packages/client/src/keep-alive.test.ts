import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { honourKeepAliveHint, idleTimeoutFromKeepAlive } from './keep-alive-agent.js';
import { RestClient } from './rest-client.js';

/** One connection as the server saw it. */
interface Connection {
  socket: Socket;
  /** `METHOD url` of each request that arrived on it. */
  requests: string[];
  userAgent?: string | undefined;
  /** Who ended it: 'client' when the server socket got 'end' (the client's FIN) before 'close'. */
  closed: Promise<{ by: 'client' | 'server'; at: number }>;
  open: boolean;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, connection: Connection) => void;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real http server on 127.0.0.1 that records its connections; closed after the test. */
async function startServer(
  keepAliveTimeout: number,
  handler: Handler,
): Promise<{ url: string; connections: Connection[] }> {
  const connections: Connection[] = [];
  const bySocket = new Map<Socket, Connection>();
  const server = http.createServer((request, response) => {
    const connection = bySocket.get(request.socket)!;
    connection.requests.push(`${request.method} ${request.url}`);
    connection.userAgent ??= request.headers['user-agent'];
    handler(request, response, connection);
  });
  server.keepAliveTimeout = keepAliveTimeout;
  server.on('connection', (socket: Socket) => {
    const connection: Connection = {
      socket,
      requests: [],
      open: true,
      closed: new Promise((resolve) => {
        socket.once('end', () => resolve({ by: 'client', at: Date.now() }));
        socket.once('close', () => resolve({ by: 'server', at: Date.now() }));
      }),
    };
    socket.once('close', () => (connection.open = false));
    bySocket.set(socket, connection);
    connections.push(connection);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections };
}

function newClient(url: string): RestClient {
  const client = new RestClient({ server: url });
  cleanups.push(() => client.close());
  return client;
}

/** Lets node put a finished request's socket back into the free pool (it does so on a later tick). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A GET through a given agent; resolves with the body once the response ended. */
function get(url: string, agent: http.Agent, onSocket?: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = http.get(url, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    if (onSocket) outgoing.on('socket', onSocket);
    outgoing.on('error', reject);
  });
}

const ok = (_request: http.IncomingMessage, response: http.ServerResponse): void => {
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end('{"ok":true}');
};

/** Answers with headers and a first watch event at once, and a second event (then the end) after `delayMs`. */
function slowWatch(delayMs: number): Handler {
  return (request, response) => {
    if (!request.url?.startsWith('/watch')) return ok(request, response);
    const event = (rv: string) =>
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: rv, resourceVersion: rv } } }) + '\n';
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write(event('1'));
    setTimeout(() => response.end(event('2')), delayMs);
  };
}

describe('idleTimeoutFromKeepAlive', () => {
  it('takes a second off the server hint', () => {
    expect(idleTimeoutFromKeepAlive('timeout=5')).toBe(4000);
    expect(idleTimeoutFromKeepAlive('max=100, timeout=3')).toBe(2000);
    expect(idleTimeoutFromKeepAlive('timeout=1')).toBe(0);
    expect(idleTimeoutFromKeepAlive('max=100')).toBeUndefined();
    expect(idleTimeoutFromKeepAlive(undefined)).toBeUndefined();
  });
});

describe('honourKeepAliveHint', () => {
  it("gives a pooled socket the server hint's idle timeout and takes it off when a request reuses the socket", async () => {
    const { url, connections } = await startServer(2500, slowWatch(1500));
    const agent = honourKeepAliveHint(new http.Agent({ keepAlive: true }));
    cleanups.push(() => agent.destroy());

    await get(`${url}/ping`, agent);
    await settle();
    const free = Object.values(agent.freeSockets).flat();
    expect(free).toHaveLength(1);
    expect((free[0] as Socket).timeout).toBe(1000);

    // The reused socket serves a response that is silent for longer than the idle timeout.
    let timeoutOnReuse: number | undefined;
    let timeouts = 0;
    const body = await get(`${url}/watch`, agent, (socket) => {
      timeoutOnReuse = socket.timeout;
      socket.on('timeout', () => timeouts++);
    });
    expect(body.trim().split('\n')).toHaveLength(2);
    expect(timeoutOnReuse).toBe(0);
    expect(timeouts).toBe(0);
    expect(connections.map((connection) => connection.requests)).toEqual([['GET /ping', 'GET /watch']]);
  });

  it('does not keep a socket when the server hint leaves less than a second', async () => {
    const { url, connections } = await startServer(1000, ok);
    const agent = honourKeepAliveHint(new http.Agent({ keepAlive: true }));
    cleanups.push(() => agent.destroy());

    await get(`${url}/a`, agent);
    await settle();
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(0);
    await get(`${url}/b`, agent);
    expect(connections.map((connection) => connection.requests)).toEqual([['GET /a'], ['GET /b']]);
  });
});

describe('RestClient keep-alive', () => {
  it("closes an idle pooled connection before the server's keep-alive timeout, then opens a new one", async () => {
    const { url, connections } = await startServer(2500, ok);
    const client = newClient(url);
    // Control: node's own keep-alive agent, which ignores the hint when it has no `timeout` option.
    const control = new http.Agent({ keepAlive: true });
    cleanups.push(() => control.destroy());

    const [response] = await Promise.all([
      client.raw({ method: 'GET', path: '/a' }),
      get(`${url}/control`, control),
    ]);
    const answeredAt = Date.now();
    expect(response.headers['keep-alive']).toBe('timeout=2');

    const ours = connections.find((connection) => connection.userAgent === 'kapi-client')!;
    const theirs = connections.find((connection) => connection.userAgent !== 'kapi-client')!;
    const closed = await ours.closed;
    // The client closed it (its FIN reached the server), well before the server's own 2500 ms.
    expect(closed.by).toBe('client');
    expect(closed.at - answeredAt).toBeLessThan(2500);
    expect(closed.at - answeredAt).toBeGreaterThanOrEqual(500);
    // Without the hint, the connection stays open.
    expect(theirs.open).toBe(true);

    await expect(client.request({ method: 'GET', path: '/b' })).resolves.toEqual({ ok: true });
    expect(
      connections.filter((connection) => connection.userAgent === 'kapi-client').map((c) => c.requests),
    ).toEqual([['GET /a'], ['GET /b']]);
  });

  it('keeps a watch on a reused connection open past the idle timeout', async () => {
    const { url, connections } = await startServer(2500, slowWatch(1500));
    const client = newClient(url);

    await client.request({ method: 'GET', path: '/ping' });
    await settle();
    const stream = await client.watch({ path: '/watch' });
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.object.metadata.resourceVersion ?? '');
    expect(seen).toEqual(['1', '2']);
    expect(connections.map((connection) => connection.requests)).toEqual([
      ['GET /ping', 'GET /watch?watch=true'],
    ]);
  });
});

describe('RestClient retry on a reused connection the server closed', () => {
  /** Answers the first request on a connection and destroys the connection when a second one arrives on it. */
  const closesOnSecond: Handler = (request, response, connection) => {
    if (connection.requests.length === 2) request.socket.destroy();
    else ok(request, response);
  };

  it('sends a GET again on a new connection', async () => {
    const { url, connections } = await startServer(5000, closesOnSecond);
    const client = newClient(url);

    await client.request({ method: 'GET', path: '/first' });
    await settle();
    await expect(client.request({ method: 'GET', path: '/second' })).resolves.toEqual({ ok: true });
    expect(connections.map((connection) => connection.requests)).toEqual([
      ['GET /first', 'GET /second'],
      ['GET /second'],
    ]);
  });

  it('does not send a POST again', async () => {
    const { url, connections } = await startServer(5000, closesOnSecond);
    const client = newClient(url);

    await client.request({ method: 'GET', path: '/first' });
    await settle();
    await expect(
      client.request({ method: 'POST', path: '/items', body: { name: 'a' } }),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/),
    });
    expect(connections.map((connection) => connection.requests)).toEqual([['GET /first', 'POST /items']]);
  });

  it('does not send a GET again when its signal was aborted', async () => {
    const { url, connections } = await startServer(5000, (request, response, connection) => {
      if (connection.requests.length === 2) {
        abort.abort();
        request.socket.destroy();
      } else ok(request, response);
    });
    const client = newClient(url);
    const abort = new AbortController();

    await client.request({ method: 'GET', path: '/first' });
    await settle();
    await expect(client.request({ method: 'GET', path: '/second', signal: abort.signal })).rejects.toThrow();
    expect(connections.map((connection) => connection.requests)).toEqual([['GET /first', 'GET /second']]);
  });
});
