import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import { StatusError, type KubeObject, type Status, type WatchEvent } from '@kapi/apimachinery';
import type { InProcessServe, RestConfig } from './rest-config.js';
import { honourKeepAliveHint } from './keep-alive-agent.js';
import { decodeWatchStream, type WatchStream } from './watch-stream.js';

/** One HTTP request to the apiserver. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute path, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Default `application/json`. */
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A raw response: status code, headers and body bytes. */
export interface RestResponse {
  statusCode: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * The query string of a request: `?key=value&...` of the entries of `query` that are not undefined
 * (values as strings, URL-encoded; `''` when there are none). Lets another transport of the client's
 * requests (e.g. an HTTP/2 session) build the same URLs as {@link RestClient}.
 */
export function buildQuery(query: RestRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Turns a non-2xx response into a StatusError (using the Status body when there is one). */
export function errorFromResponse(statusCode: number, body: Buffer): StatusError {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Partial<Status>;
    if (parsed && parsed.kind === 'Status')
      return new StatusError({ ...(parsed as Status), code: parsed.code ?? statusCode });
  } catch {
    // not JSON: fall through
  }
  const text = body.toString('utf8').trim() || http.STATUS_CODES[statusCode] || 'error';
  return StatusError.of(statusCode, '', text);
}

/** Methods a request may be sent again for: a second delivery has the same effect (RFC 9110 idempotent methods). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Errors of a keep-alive connection the server closed while the request was sent on it. */
const CLOSED_CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Whether a request that failed on a reused connection before any response may be sent again: its method is
 * idempotent and the error says the server closed the connection ("socket hang up" has code ECONNRESET).
 */
function isRetryable(method: string, error: NodeJS.ErrnoException): boolean {
  return IDEMPOTENT_METHODS.has(method) && CLOSED_CONNECTION_CODES.has(error.code ?? '');
}

/**
 * A minimal REST client for JSON over HTTP(S) with keep-alive, bearer-token or client-certificate auth.
 * Non-2xx responses are thrown as StatusError.
 *
 * Pooled connections are closed a second before the server's `Keep-Alive: timeout=N` runs out, and an idempotent
 * request (GET, HEAD, OPTIONS, PUT, DELETE) that finds its reused connection closed by the server before any
 * response is sent once more on a new connection; POST and PATCH are not, as they could be applied twice.
 */
export class RestClient {
  private readonly agent: http.Agent;
  private readonly url: URL;
  /**
   * TLS options for https: on the pooled agent, and on each request that opens a connection of its own.
   * The CA and client certificate go in one secure context, built once, not as PEM options: node's https
   * agent names its connection pools by concatenating every PEM option into a string on every request.
   */
  private readonly tlsOptions: Pick<https.AgentOptions, 'secureContext' | 'rejectUnauthorized'>;

  constructor(readonly config: RestConfig) {
    this.url = new URL(config.server);
    const tls = this.url.protocol === 'https:';
    const agentOptions = { keepAlive: true, maxSockets: 64 };
    this.tlsOptions = tls
      ? {
          secureContext: createSecureContext({
            ...(config.ca ? { ca: config.ca } : {}),
            ...(config.cert ? { cert: config.cert } : {}),
            ...(config.key ? { key: config.key } : {}),
          }),
          rejectUnauthorized: !config.insecureSkipTLSVerify,
        }
      : {};
    this.agent = tls
      ? honourKeepAliveHint(new https.Agent({ ...agentOptions, ...this.tlsOptions }))
      : honourKeepAliveHint(new http.Agent(agentOptions));
  }

  /**
   * Sends a request and resolves with the response once its head arrived. A request that fails on a reused
   * keep-alive connection the server closed under it (ECONNRESET, EPIPE, "socket hang up") before any response
   * is sent once more on a connection of its own, if its method is idempotent (as Go's net/http does).
   */
  private open(request: RestRequest): Promise<IncomingMessage> {
    const { headers, payload } = this.headersOf(request);
    return this.send(request, headers, payload, false);
  }

  /** The headers and body bytes of a request. */
  private headersOf(request: RestRequest): { headers: Record<string, string>; payload: Buffer | undefined } {
    const headers: Record<string, string> = {
      accept: request.accept ?? 'application/json',
      'user-agent': this.config.userAgent ?? 'kapi-client',
    };
    if (this.config.token) headers.authorization = `Bearer ${this.config.token}`;
    let payload: Buffer | undefined;
    if (request.body !== undefined) {
      payload = Buffer.isBuffer(request.body) ? request.body : Buffer.from(JSON.stringify(request.body));
      headers['content-type'] = request.contentType ?? 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return { headers, payload };
  }

  /** One attempt of open(): on the pooled agent, or (`fresh`) on a new connection that is closed after it. */
  private send(
    request: RestRequest,
    headers: Record<string, string>,
    payload: Buffer | undefined,
    fresh: boolean,
  ): Promise<IncomingMessage> {
    const tls = this.url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      let responded = false;
      const outgoing = (tls ? https : http).request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          method: request.method,
          path: `${this.url.pathname.replace(/\/$/, '')}${request.path}${buildQuery(request.query)}`,
          headers,
          // `agent: false` makes node open a connection for this request alone.
          ...(fresh ? { agent: false, ...this.tlsOptions } : { agent: this.agent }),
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.timeoutMs ? { timeout: request.timeoutMs } : {}),
        },
        (response) => {
          responded = true;
          resolve(response);
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(new Error(`request timed out after ${request.timeoutMs} ms`)),
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const retry =
          !fresh &&
          !responded &&
          outgoing.reusedSocket &&
          !request.signal?.aborted &&
          isRetryable(request.method, error);
        if (retry) resolve(this.send(request, headers, payload, true));
        else reject(error);
      });
      outgoing.end(payload);
    });
  }

  /** Sends a request and returns the raw response, whatever its status. */
  async raw(request: RestRequest): Promise<RestResponse> {
    const serve = this.config.inProcess;
    if (serve) return this.rawInProcess(serve, request);
    const response = await this.open(request);
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return { statusCode: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) };
  }

  /** A request served by {@link RestConfig.inProcess}, with the headers it would carry on the network. */
  private async rawInProcess(serve: InProcessServe, request: RestRequest): Promise<RestResponse> {
    const { headers, payload } = this.headersOf(request);
    const url = `${request.path}${buildQuery(request.query)}`;
    const answer = await serve({ method: request.method, url, headers, ...(payload ? { body: payload } : {}), ...(request.signal ? { signal: request.signal } : {}) });
    const received: IncomingMessage['headers'] = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) received[name] = typeof value === 'number' ? String(value) : value;
    }
    return { statusCode: answer.statusCode, headers: received, body: answer.body };
  }

  /** Sends a request and returns the parsed JSON body; throws StatusError on non-2xx. */
  async request<T = unknown>(request: RestRequest): Promise<T> {
    const response = await this.raw(request);
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw errorFromResponse(response.statusCode, response.body);
    if (response.body.length === 0) return undefined as T;
    return JSON.parse(response.body.toString('utf8')) as T;
  }

  /** Opens a watch (`watch=true` is added) and decodes its event stream. */
  async watch<T extends KubeObject = KubeObject>(
    request: Omit<RestRequest, 'method'>,
  ): Promise<WatchStream<T>> {
    const abort = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, abort.signal]) : abort.signal;
    const response = await this.open({
      ...request,
      method: 'GET',
      query: { ...request.query, watch: 'true' },
      signal,
    });
    const statusCode = response.statusCode ?? 0;
    if (statusCode < 200 || statusCode >= 300) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      throw errorFromResponse(statusCode, Buffer.concat(chunks));
    }
    return decodeWatchStream<T>(response, () => abort.abort());
  }

  /** Releases pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}

export type { WatchEvent };
