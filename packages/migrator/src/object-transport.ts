import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import type { RestClient } from '@kapi/client';

/** A page read or an object write of a migration. */
export interface ObjectRequest {
  method: 'GET' | 'PUT' | 'PATCH';
  /** Absolute API path, e.g. `/api/v1/namespaces/default/configmaps/a`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON bytes (a PUT's object, a PATCH's patch). */
  body?: Buffer;
  /** The body's media type (default `application/json`). */
  contentType?: string;
  /** The Accept header (default `application/json`). */
  accept?: string;
}

/** A response: its status and body bytes (whatever the status). */
export interface ObjectResponse {
  statusCode: number;
  body: Buffer;
}

/** How a migration reads its pages and writes its objects back. */
export interface ObjectTransport {
  raw(request: ObjectRequest): Promise<ObjectResponse>;
  /** Closes its connection; a later request opens a new one. */
  close(): void;
}

/** How long a request may take before it fails with a retriable timeout (the migration retries it). */
export const defaultRequestTimeoutMs = 60_000;

/** The REST client's own transport (HTTP/1.1 keep-alive). */
export function restTransport(rest: RestClient, timeoutMs = defaultRequestTimeoutMs): ObjectTransport {
  return { raw: (request) => rest.raw({ ...request, timeoutMs }), close: () => undefined };
}

/** A transport failure a migration may simply try again (the write is conditional on its resourceVersion). */
function retriable(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(`HTTP/2: ${message}`, { cause: error }), { code: 'ECONNRESET' });
}

function queryString(query: ObjectRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The migration's page reads and object writes over one HTTP/2 connection (as client-go's migrator
 * does), its streams multiplexed: a write costs the server and the migrator less than an HTTP/1.1
 * request on one of many keep-alive connections (HPACK-compressed headers, the responses of several
 * streams written to the socket together). The REST client's configuration (server, CA, client
 * certificate or token) is used as is. An `http:` server, or one that does not negotiate HTTP/2 on the
 * first connection, is served by the REST client instead. A request that loses its connection fails
 * with a retriable ECONNRESET error, and the next one connects again.
 */
export class Http2Transport implements ObjectTransport {
  private session: Promise<ClientHttp2Session> | undefined;
  private connected = false;
  private fallback: boolean;
  private inFlight = 0;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly headers: OutgoingHttpHeaders;

  /** `timeoutMs`: a request not answered in full by then fails with a retriable timeout error and its stream is reset. */
  constructor(
    private readonly rest: RestClient,
    private readonly timeoutMs = defaultRequestTimeoutMs,
  ) {
    const url = new URL(rest.config.server);
    this.fallback = url.protocol !== 'https:';
    this.origin = url.origin;
    this.pathPrefix = url.pathname.replace(/\/$/, '');
    this.headers = {
      accept: 'application/json',
      'user-agent': rest.config.userAgent ?? 'kapi-client',
      ...(rest.config.token ? { authorization: `Bearer ${rest.config.token}` } : {}),
    };
  }

  async raw(request: ObjectRequest): Promise<ObjectResponse> {
    if (this.fallback) return this.rest.raw({ ...request, timeoutMs: this.timeoutMs });
    let session: ClientHttp2Session;
    try {
      session = await this.open();
    } catch (error) {
      if (this.connected) throw retriable(error);
      // Never connected over HTTP/2 (no h2 in ALPN, or no server): the REST client decides.
      this.fallback = true;
      return this.rest.raw({ ...request, timeoutMs: this.timeoutMs });
    }
    return this.send(session, request);
  }

  close(): void {
    const session = this.session;
    this.session = undefined;
    void session?.then((open) => open.close(), () => undefined);
  }

  private open(): Promise<ClientHttp2Session> {
    if (this.session) return this.session;
    const config = this.rest.config;
    const opening = new Promise<ClientHttp2Session>((resolve, reject) => {
      const session = connect(this.origin, {
        ...(config.ca ? { ca: config.ca } : {}),
        ...(config.cert ? { cert: config.cert } : {}),
        ...(config.key ? { key: config.key } : {}),
        rejectUnauthorized: !config.insecureSkipTLSVerify,
      });
      const forget = () => {
        if (this.session === opening) this.session = undefined;
      };
      session.once('connect', () => {
        this.connected = true;
        session.unref();
        resolve(session);
      });
      // Errors before the connection reject it; later ones end its streams, which report them.
      session.on('error', (error) => {
        forget();
        reject(error);
      });
      session.once('goaway', forget);
      session.once('close', () => {
        forget();
        reject(new Error('the connection closed before HTTP/2 was set up'));
      });
    });
    this.session = opening;
    return opening;
  }

  private send(session: ClientHttp2Session, request: ObjectRequest): Promise<ObjectResponse> {
    return new Promise((resolve, reject) => {
      const headers: OutgoingHttpHeaders = {
        ...this.headers,
        ...(request.accept ? { accept: request.accept } : {}),
        ':method': request.method,
        ':path': `${this.pathPrefix}${request.path}${queryString(request.query)}`,
      };
      if (request.body) {
        headers['content-type'] = request.contentType ?? 'application/json';
        headers['content-length'] = request.body.length;
      }
      let settled = false;
      const settle = () => {
        settled = true;
        if (--this.inFlight === 0) session.unref();
      };
      if (this.inFlight++ === 0) session.ref();
      let stream;
      try {
        stream = session.request(headers, { endStream: !request.body });
      } catch (error) {
        settle();
        reject(retriable(error));
        return;
      }
      let statusCode = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (responseHeaders) => (statusCode = Number(responseHeaders[':status'] ?? 0)));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (settled) return;
        settle();
        resolve({ statusCode, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) });
      });
      stream.on('error', (error) => {
        if (settled) return;
        settle();
        reject(retriable(error));
      });
      stream.setTimeout(this.timeoutMs, () => {
        if (settled) return;
        settle();
        reject(Object.assign(new Error(`HTTP/2: ${request.method} ${request.path} timed out after ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
        stream.close(constants.NGHTTP2_CANCEL);
      });
      stream.on('close', () => {
        if (settled) return;
        settle();
        reject(retriable(new Error(`stream closed before its response ended (code ${stream.rstCode ?? 0})`)));
      });
      if (request.body) stream.end(request.body);
    });
  }
}
