import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Test helper (not exported): serves handlers that return true when they served a path, 404 otherwise. */
export interface TestServer {
  url: string;
  server: Server;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; text: string }>;
  close(): Promise<void>;
}

/** Starts a node:http server on 127.0.0.1:0 over the given handlers. */
export async function startTestServer(
  ...handlers: ((request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>)[]
): Promise<TestServer> {
  const server = createServer((request, response) => {
    void (async () => {
      for (const handler of handlers) {
        if (await handler(request, response)) return;
      }
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('404 page not found\n');
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    async get(path, headers = {}) {
      const result = await fetch(url + path, { headers });
      return { status: result.status, headers: result.headers, text: await result.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
