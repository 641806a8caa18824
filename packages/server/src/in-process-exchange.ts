import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { requestContext, type Handler } from '@kapi/filters';

/**
 * Requests a server makes of itself (e.g. its in-process storage version migrator's page reads and
 * writes) need no socket: the two classes here answer the part of node:http's request and response that
 * the handler chain uses, and the answer's bytes are collected in memory. The request still passes
 * every filter (authentication by its headers, authorization, admission, audit, APF), as kube-aggregator
 * serves local APIServices by calling their handler, without the TLS, HTTP framing and parsing that a
 * loopback connection costs on both of its ends in the one event loop.
 */

/** A request served by {@link serveInProcess}. */
export interface InProcessRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/namespaces/a/configmaps?limit=10`. */
  url: string;
  /** Header names in lower case (e.g. `authorization`, `content-type`, `accept`). */
  headers?: Record<string, string>;
  body?: Buffer;
  /** Aborting it abandons the request: the chain sees its client go away, and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What {@link serveInProcess} answers: the status, the headers sent and the whole body. */
export interface InProcessAnswer {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** The connection error of an in-process request the chain aborted (as a reset connection reads to a client). */
function connectionReset(): Error {
  return Object.assign(new Error('the in-process request was aborted by the server'), { code: 'ECONNRESET' });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** The socket the chain sees: loopback addresses, no TLS peer; destroying it aborts the exchange. */
class LoopbackSocket {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 0;
  readonly localAddress = '127.0.0.1';
  readonly localPort = 0;
  readonly encrypted = true;
  destroyed = false;

  constructor(private readonly response: LoopbackResponse) {}

  destroy(): this {
    this.destroyed = true;
    this.response.destroy();
    return this;
  }

  setTimeout(): this {
    return this;
  }

  cork(): void {}

  uncork(): void {}
}

/** The request side, as node:http's IncomingMessage looks to the handler chain (its body is in the request context already). */
class LoopbackRequest extends EventEmitter {
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly trailers: IncomingHttpHeaders = {};
  readonly complete = true;
  aborted = false;
  socket!: LoopbackSocket;

  constructor(
    readonly method: string,
    public url: string,
    readonly headers: IncomingHttpHeaders,
    private readonly body: Buffer | undefined,
  ) {
    super();
  }

  /** Names and values in turn, made when read (only impersonation reads them). */
  get rawHeaders(): string[] {
    return Object.entries(this.headers).flatMap(([name, value]) => [name, String(value)]);
  }

  get connection(): LoopbackSocket {
    return this.socket;
  }

  pause(): this {
    return this;
  }

  resume(): this {
    return this;
  }

  setTimeout(): this {
    return this;
  }

  destroy(): this {
    this.socket.destroy();
    return this;
  }

  /** The body's one chunk (`for await (const chunk of request)`), for a handler that reads it itself. */
  async *[Symbol.asyncIterator](): AsyncIterableIterator<Buffer> {
    if (this.body && this.body.length > 0) yield this.body;
  }
}

/** The response side, as node:http's ServerResponse looks to the handler chain: what it writes is kept. */
class LoopbackResponse extends EventEmitter {
  statusCode = 200;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  closed = false;
  readonly writableLength = 0;
  readonly writableNeedDrain = false;
  readonly sendDate = false;
  /** node sets a response's `socket` to null once detached; a chain that streams into it writes here instead. */
  readonly socket = null;
  private readonly fields: OutgoingHttpHeaders = {};
  private sent: OutgoingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];

  constructor(
    readonly req: LoopbackRequest,
    private readonly settle: (answer: InProcessAnswer | Error) => void,
  ) {
    super();
  }

  get finished(): boolean {
    return this.writableEnded;
  }

  get writable(): boolean {
    return !this.writableEnded && !this.destroyed;
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.fields[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.fields[name.toLowerCase()];
  }

  getHeaders(): OutgoingHttpHeaders {
    return { ...this.fields };
  }

  getHeaderNames(): string[] {
    return Object.keys(this.fields);
  }

  hasHeader(name: string): boolean {
    return this.fields[name.toLowerCase()] !== undefined;
  }

  removeHeader(name: string): void {
    delete this.fields[name.toLowerCase()];
  }

  writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw Object.assign(new Error('Cannot write headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    const fields = typeof reason === 'object' ? reason : headers;
    if (typeof reason === 'string') this.statusMessage = reason;
    if (fields) for (const [name, value] of Object.entries(fields)) if (value !== undefined) this.setHeader(name, value);
    this.statusCode = statusCode;
    this.headersSent = true;
    this.sent = { ...this.fields };
    return this;
  }

  // Headers that go out implicitly go through `writeHead` (the instance's: a filter may wrap it).
  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void): boolean {
    if (this.writableEnded || this.destroyed) return false;
    if (!this.headersSent) this.writeHead(this.statusCode);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof chunk === 'string') this.chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8'));
    // A write's callback tells its writer the chunk is no longer needed (the list writer then reuses it), so
    // a chunk written with one is copied; one without is the writer's to keep unchanged, and kept as it is.
    else if (done) this.chunks.push(Buffer.from(chunk));
    else this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (done) queueMicrotask(() => done());
    return true;
  }

  end(chunk?: string | Uint8Array | (() => void), encoding?: BufferEncoding | (() => void), callback?: () => void): this {
    if (typeof chunk === 'function') return this.end(undefined, undefined, chunk);
    if (typeof encoding === 'function') return this.end(chunk, undefined, encoding);
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined) this.write(chunk, encoding);
    else if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    process.nextTick(() => {
      this.writableFinished = true;
      this.emit('finish');
      this.closed = true;
      this.emit('close');
      callback?.();
      const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
      this.settle({ statusCode: this.statusCode, headers: this.sent, body });
    });
    return this;
  }

  /** Aborts the exchange: `close` without `finish`, and the caller's promise rejects (unless the answer was complete) with `reason`. */
  destroy(reason: Error = connectionReset()): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.req.aborted = !this.writableEnded;
    process.nextTick(() => {
      if (!this.closed) {
        this.closed = true;
        this.emit('close');
      }
      if (!this.writableFinished) this.settle(reason);
    });
    return this;
  }

  cork(): void {}

  uncork(): void {}

  setTimeout(): this {
    return this;
  }
}

/**
 * Serves `request` through `handler` (a server's whole handler chain) in this process and resolves with
 * its answer; rejects (code `ECONNRESET`) when the chain aborts it, as a reset connection would. The
 * request is authenticated by its headers like any other (e.g. the loopback bearer token). It is started
 * on a later turn of the event loop, one in-process request per turn (see {@link TurnQueue}), so that
 * timers and I/O run between them, as they do between requests over a socket.
 */
export function serveInProcess(handler: Handler, request: InProcessRequest): Promise<InProcessAnswer> {
  return new Promise<InProcessAnswer>((resolve, reject) => {
    const signal = request.signal;
    if (signal?.aborted) return reject(abortReason(signal));
    const headers: IncomingHttpHeaders = { host: 'localhost', ...request.headers };
    if (request.body) headers['content-length'] = String(request.body.length);
    const incoming = new LoopbackRequest(request.method, request.url, headers, request.body);
    const response = new LoopbackResponse(incoming, (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)));
    incoming.socket = new LoopbackSocket(response);
    if (signal) {
      const abort = () => response.destroy(abortReason(signal));
      signal.addEventListener('abort', abort, { once: true });
      response.once('close', () => signal.removeEventListener('abort', abort));
    }
    const asNode = incoming as unknown as IncomingMessage;
    // The body is read already: the chain's body filter takes it from the context.
    if (request.body && request.body.length > 0) requestContext(asNode).body = request.body;
    inProcessTurns.enqueue(() => {
      if (response.destroyed) return;
      Promise.resolve(handler(asNode, response as unknown as ServerResponse)).catch(() => {
        if (!response.writableEnded) response.destroy();
      });
    });
  });
}

/**
 * Starts in-process requests one per turn of the event loop, each on a later turn than the one it was
 * sent in, as a request from a socket is. One whose chain does no I/O (a read from memory or from SQLite)
 * would otherwise complete in microtasks alone, and a client looping on such requests would keep timers
 * and I/O (its own informer's watch events) from running. One per turn: node runs every immediate queued
 * before its check phase in one go, so several requests sent at once (a migrator's page read, write and
 * status save) would hold the loop for all of them together, and a request from a socket that arrived
 * meanwhile would wait for the lot; between two of them the loop now polls its sockets.
 */
class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  enqueue(start: () => void): void {
    this.waiting.push(start);
    if (!this.scheduled) this.schedule();
  }

  private schedule(): void {
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const start = this.waiting.shift();
      // The next one is scheduled first: an immediate set now runs on the loop's next turn.
      if (this.waiting.length > 0) this.schedule();
      start?.();
    });
  }
}

const inProcessTurns = new TurnQueue();
