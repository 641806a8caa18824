import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { buildQuery, type RestClient } from '@kapi/client';

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

/**
 * Flow-control windows the migrator's session offers the server: a page of metadata (~200 KB for 500
 * objects) and the writes' answers arrive without waiting for WINDOW_UPDATEs (HTTP/2's default is 64 KB
 * for the connection and each stream); the migrator reads every stream as its data arrives.
 */
const STREAM_WINDOW_BYTES = 1 << 20;
const SESSION_WINDOW_BYTES = 4 << 20;

const kPending = Symbol('kapi.migrator.pendingRequest');
type RequestStream = ClientHttp2Stream & { [kPending]?: PendingRequest | undefined };

/**
 * One request in flight: its stream's events settle it once. Its listeners are shared functions that
 * find it on their stream (`this`), so a request allocates this object, not a closure per event.
 */
class PendingRequest {
  statusCode = 0;
  private chunks: Buffer[] | undefined;
  private first: Buffer | undefined;
  settled = false;

  constructor(
    private readonly owner: Http2Transport,
    readonly stream: RequestStream,
    readonly request: ObjectRequest,
    readonly deadline: number,
    private readonly resolve: (response: ObjectResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  data(chunk: Buffer): void {
    if (this.first === undefined) this.first = chunk;
    else (this.chunks ??= [this.first]).push(chunk);
  }

  succeed(): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.settled(this);
    const body = this.chunks ? Buffer.concat(this.chunks) : (this.first ?? Buffer.alloc(0));
    this.resolve({ statusCode: this.statusCode, body });
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.settled(this);
    this.reject(error);
  }
}

function onResponse(this: RequestStream, headers: IncomingHttpHeaders): void {
  const pending = this[kPending];
  if (pending) pending.statusCode = Number(headers[':status'] ?? 0);
}
function onData(this: RequestStream, chunk: Buffer): void {
  this[kPending]?.data(chunk);
}
function onEnd(this: RequestStream): void {
  this[kPending]?.succeed();
}
function onError(this: RequestStream, error: Error): void {
  this[kPending]?.fail(retriable(error));
}
function onClose(this: RequestStream): void {
  this[kPending]?.fail(retriable(new Error(`stream closed before its response ended (code ${this.rstCode ?? 0})`)));
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
  /** The open session, once connected (requests on it are sent without awaiting `session`). */
  private live: ClientHttp2Session | undefined;
  private connected = false;
  private fallback: boolean;
  /** Requests in flight, oldest first (all have the same timeout, so also by deadline). */
  private readonly pending = new Set<PendingRequest>();
  private timer: NodeJS.Timeout | undefined;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly userAgent: string;
  private readonly authorization: string | undefined;

  /** `timeoutMs`: a request not answered in full by then fails with a retriable timeout error and its stream is reset. */
  constructor(
    private readonly rest: RestClient,
    private readonly timeoutMs = defaultRequestTimeoutMs,
  ) {
    const url = new URL(rest.config.server);
    this.fallback = url.protocol !== 'https:';
    this.origin = url.origin;
    this.pathPrefix = url.pathname.replace(/\/$/, '');
    this.userAgent = rest.config.userAgent ?? 'kapi-client';
    this.authorization = rest.config.token ? `Bearer ${rest.config.token}` : undefined;
  }

  async raw(request: ObjectRequest): Promise<ObjectResponse> {
    if (this.fallback) return this.rest.raw({ ...request, timeoutMs: this.timeoutMs });
    const live = this.live;
    if (live && !live.closed && !live.destroyed) return this.send(live, request);
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
    this.live = undefined;
    this.stopTimer();
    void session?.then((open) => open.close(), () => undefined);
  }

  /** Called by a request when it settles. */
  settled(request: PendingRequest): void {
    this.pending.delete(request);
    request.stream[kPending] = undefined;
    if (this.pending.size === 0) {
      this.live?.unref();
      // An idle transport holds no timer (it would keep the transport, and its client, alive until it fires).
      this.stopTimer();
    }
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
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
        settings: { initialWindowSize: STREAM_WINDOW_BYTES },
      });
      const forget = () => {
        if (this.session === opening) this.session = undefined;
        if (this.live === session) this.live = undefined;
      };
      session.once('connect', () => {
        this.connected = true;
        session.setLocalWindowSize(SESSION_WINDOW_BYTES);
        if (this.session === opening) this.live = session;
        if (this.pending.size === 0) session.unref();
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
    const headers: OutgoingHttpHeaders = {
      ':method': request.method,
      ':path': `${this.pathPrefix}${request.path}${request.query ? buildQuery(request.query) : ''}`,
      accept: request.accept ?? 'application/json',
      'user-agent': this.userAgent,
    };
    if (this.authorization) headers['authorization'] = this.authorization;
    const body = request.body;
    if (body) {
      headers['content-type'] = request.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    }
    return new Promise((resolve, reject) => {
      let stream: RequestStream;
      try {
        stream = session.request(headers, { endStream: !body });
      } catch (error) {
        reject(retriable(error));
        return;
      }
      const pending = new PendingRequest(this, stream, request, Date.now() + this.timeoutMs, resolve, reject);
      stream[kPending] = pending;
      if (this.pending.size === 0) session.ref();
      this.pending.add(pending);
      this.timer ??= setTimeout(() => this.expire(), this.timeoutMs).unref();
      stream.on('response', onResponse);
      stream.on('data', onData);
      stream.on('end', onEnd);
      stream.on('error', onError);
      stream.on('close', onClose);
      if (body) stream.end(body);
    });
  }

  /**
   * Fails the requests past their deadline (oldest first) with a retriable timeout and resets their
   * streams, then waits for the next oldest one's: one timer for all requests in flight.
   */
  private expire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const pending of this.pending) {
      if (pending.deadline > now) {
        this.timer = setTimeout(() => this.expire(), pending.deadline - now).unref();
        return;
      }
      const { stream, request } = pending;
      pending.fail(Object.assign(new Error(`HTTP/2: ${request.method} ${request.path} timed out after ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      stream.close(constants.NGHTTP2_CANCEL);
    }
  }
}
