/** Test-only helpers: a real server on 127.0.0.1:0 and a small client. Not exported from the package. */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Handler } from './handler.js';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: Record<string, unknown> | undefined;
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** TLS client options (ca, cert, key) for HTTPS servers. */
  tls?: { ca?: string; cert?: string; key?: string };
}

export interface TestServer {
  url: string;
  send(path: string, options?: SendOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1:0 (HTTPS when tls options are given). */
export async function serve(handler: Handler, tls?: ServerOptions): Promise<TestServer> {
  const listener = (request: Parameters<Handler>[0], response: Parameters<Handler>[1]) => {
    void Promise.resolve(handler(request, response)).catch(() => {
      if (!response.headersSent) response.writeHead(599);
      response.end();
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    send: (path, options = {}) => send(`${scheme}://127.0.0.1:${port}${path}`, options),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request with a fresh connection; rejects when the connection is cut. */
export function send(url: string, options: SendOptions = {}): Promise<TestResponse> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
        ...(options.tls ?? {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A handler that answers 200 with what the filters put in the context. */
export function okHandler(extra?: (request: Parameters<Handler>[0]) => Record<string, unknown>): Handler {
  return (request, response) => {
    const body = JSON.stringify({ ok: true, ...(extra ? extra(request) : {}) });
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(body);
  };
}
