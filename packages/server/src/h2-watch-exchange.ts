import type { IncomingHttpHeaders, OutgoingHttpHeader } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';

/**
 * Why watches over HTTP/2 get their own request and response objects: node's compatibility API makes an
 * `Http2ServerRequest` (a Readable) and an `Http2ServerResponse` for every stream, with a headers
 * dictionary and about ten listeners on the stream. That is about 2.5 KB per stream, twice the stream itself,
 * held for an idle watch's whole life. The two classes here answer the part of node:http's request and
 * response that the handler chain uses, straight on the stream, and keep nothing of their own but the
 * stream, the request headers, the status, (until they are sent) the response headers and their `close`
 * listeners.
 */

/** The query of a watch (`watch=true` / `watch=1`), or the legacy `/watch/` path prefix. */
const watchTarget = /[?&]watch=(?:true|1)(?:&|$)|^\/(?:api\/[^/?]+|apis\/[^/?]+\/[^/?]+)\/watch\//;

/** True for a GET of a watch without an `Expect` header: the streams that get a {@link streamExchange}. */
export function isWatchStream(headers: IncomingHttpHeaders): boolean {
  const path = headers[':path'];
  return headers[':method'] === 'GET' && headers.expect === undefined && typeof path === 'string' && watchTarget.test(path);
}

/** A stream error with no one else listening: the response's `close` tells the handler the client left. */
function ignoreStreamError(): void {}

type Listener = (...args: unknown[]) => void;

/** The response of the exchange a stream carries, until the stream closes. */
const exchangeKey = Symbol('kapi.h2-exchange');
type ExchangeStream = ServerHttp2Stream & { [exchangeKey]?: StreamResponse | undefined };

/** True for the events a facade answers itself: `close`, and `finish` (which the stream's `close` also ends). */
function isCloseEvent(event: string | symbol): boolean {
  return event === 'close' || event === 'finish';
}

/**
 * The stream's `close`, told to its request's listeners, then its response's: each with its own object
 * as `this`, as node's emitters call their listeners (a listener shared by many responses can find
 * its response that way). Registered once per stream, for both.
 */
function emitExchangeClose(this: ExchangeStream): void {
  const response = this[exchangeKey];
  this[exchangeKey] = undefined;
  response?.req.emitClose();
  response?.emitClose();
}

/**
 * The EventEmitter methods. `close` and `finish` listeners are the facade's own (both fire once, when
 * the stream closes, with the facade as `this`); other events are the stream's own (`drain`, `error`,
 * and `data` / `end` of a request body), forwarded to it (no emitter of their own).
 */
abstract class OnStream {
  /** The `close` and `finish` listeners: one held as is (an idle watch has one), more in an array. */
  private closeListeners: Listener | Listener[] | undefined;

  constructor(readonly stream: ServerHttp2Stream) {}

  on(event: string | symbol, listener: Listener): this {
    if (isCloseEvent(event)) this.addCloseListener(listener, false);
    else this.stream.on(event, listener);
    return this;
  }

  addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  once(event: string | symbol, listener: Listener): this {
    // `close` fires once: every listener of it is a once listener.
    if (isCloseEvent(event)) this.addCloseListener(listener, false);
    else this.stream.once(event, listener);
    return this;
  }

  prependListener(event: string | symbol, listener: Listener): this {
    if (isCloseEvent(event)) this.addCloseListener(listener, true);
    else this.stream.prependListener(event, listener);
    return this;
  }

  prependOnceListener(event: string | symbol, listener: Listener): this {
    if (isCloseEvent(event)) this.addCloseListener(listener, true);
    else this.stream.prependOnceListener(event, listener);
    return this;
  }

  off(event: string | symbol, listener: Listener): this {
    if (!isCloseEvent(event)) {
      this.stream.off(event, listener);
      return this;
    }
    const listeners = this.closeListeners;
    if (listeners === listener) this.closeListeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.lastIndexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    }
    return this;
  }

  removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }

  emit(event: string | symbol, ...args: unknown[]): boolean {
    if (!isCloseEvent(event)) return this.stream.emit(event, ...args);
    const listening = this.listenerCount(event) > 0;
    this.emitClose();
    return listening;
  }

  listenerCount(event: string | symbol): number {
    if (!isCloseEvent(event)) return this.stream.listenerCount(event);
    const listeners = this.closeListeners;
    return listeners === undefined ? 0 : Array.isArray(listeners) ? listeners.length : 1;
  }

  /** Calls the `close` and `finish` listeners once, with this facade as `this`. */
  emitClose(): void {
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (typeof listeners === 'function') listeners.call(this);
    else if (listeners) for (const listener of listeners) listener.call(this);
  }

  private addCloseListener(listener: Listener, first: boolean): void {
    const listeners = this.closeListeners;
    if (listeners === undefined) this.closeListeners = listener;
    else if (Array.isArray(listeners)) {
      if (first) listeners.unshift(listener);
      else listeners.push(listener);
    } else this.closeListeners = first ? [listener, listeners] : [listeners, listener];
  }

  setTimeout(milliseconds: number, callback?: () => void): this {
    this.stream.setTimeout(milliseconds, callback);
    return this;
  }

  /** The connection's TLS socket (the compatibility API hands out a proxy of it). */
  get socket(): Socket | undefined {
    return this.stream.session?.socket as Socket | undefined;
  }

  get connection(): Socket | undefined {
    return this.socket;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  destroy(error?: Error): this {
    this.stream.destroy(error);
    return this;
  }
}

/** The request of a {@link streamExchange}, as node:http's IncomingMessage looks to the handler chain. */
export class StreamRequest extends OnStream {
  /** The path and query (`:path`); the chain may rewrite it. */
  url: string;

  constructor(
    stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    readonly rawHeaders: string[],
  ) {
    super(stream);
    this.url = String(headers[':path'] ?? '/');
  }

  get method(): string {
    return String(this.headers[':method']);
  }

  get httpVersionMajor(): number {
    return 2;
  }

  get httpVersionMinor(): number {
    return 0;
  }

  get httpVersion(): string {
    return '2.0';
  }

  get complete(): boolean {
    return this.stream.readableEnded;
  }

  get aborted(): boolean {
    return this.stream.aborted;
  }

  get trailers(): IncomingHttpHeaders {
    return {};
  }

  pause(): this {
    this.stream.pause();
    return this;
  }

  resume(): this {
    this.stream.resume();
    return this;
  }

  pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    return this.stream.pipe(destination, options);
  }

  setEncoding(encoding: BufferEncoding): this {
    this.stream.setEncoding(encoding);
    return this;
  }

  read(size?: number): unknown {
    return this.stream.read(size);
  }

  /** The body's chunks (`for await (const chunk of request)`). */
  [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    return this.stream[Symbol.asyncIterator]();
  }
}

/** Headers an HTTP/2 response must not carry (node's `respond` throws on them). */
const connectionHeaders = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** Headers as node:http2 sends them: lower-case names, no undefined values. */
type StreamHeaders = Record<string, OutgoingHttpHeader>;

/** The response of a {@link streamExchange}, as node:http's ServerResponse looks to the handler chain. */
export class StreamResponse extends OnStream {
  statusCode = 200;
  /** True once `end()` was called. */
  writableEnded = false;
  /** Headers set and not sent yet (dropped once sent: an idle watch keeps none). */
  private pending: StreamHeaders | undefined;

  constructor(
    stream: ServerHttp2Stream,
    readonly req: StreamRequest,
  ) {
    super(stream);
  }

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  get closed(): boolean {
    return this.stream.closed;
  }

  get finished(): boolean {
    return this.writableEnded;
  }

  get writableFinished(): boolean {
    return this.stream.writableFinished;
  }

  get writableLength(): number {
    return this.stream.writableLength;
  }

  get writableNeedDrain(): boolean {
    return this.stream.writableNeedDrain;
  }

  get writable(): boolean {
    return !this.writableEnded && this.stream.writable;
  }

  get sendDate(): boolean {
    return true;
  }

  /** Sets a header to send; connection-specific ones (HTTP/1.x only, RFC 9113 8.2.2) are dropped, as node's response drops them. */
  setHeader(name: string, value: OutgoingHttpHeader): this {
    const key = name.toLowerCase();
    if (!connectionHeaders.has(key)) (this.pending ??= {})[key] = value;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.pending?.[name.toLowerCase()];
  }

  getHeaders(): StreamHeaders {
    return { ...this.pending };
  }

  getHeaderNames(): string[] {
    return Object.keys(this.pending ?? {});
  }

  hasHeader(name: string): boolean {
    return this.pending?.[name.toLowerCase()] !== undefined;
  }

  removeHeader(name: string): void {
    if (this.pending) delete this.pending[name.toLowerCase()];
  }

  /** Sends the status and headers at once (the compatibility response does too). */
  writeHead(statusCode: number, reason?: string | Record<string, OutgoingHttpHeader | undefined>, headers?: Record<string, OutgoingHttpHeader | undefined>): this {
    if (this.stream.destroyed || this.stream.closed) return this;
    if (this.stream.headersSent) throw Object.assign(new Error('Response has already been initiated.'), { code: 'ERR_HTTP2_HEADERS_SENT' });
    const fields = typeof reason === 'object' ? reason : headers;
    if (fields) for (const name of Object.keys(fields)) {
      const value = fields[name];
      if (value !== undefined) this.setHeader(name, value);
    }
    this.statusCode = statusCode;
    this.sendHeaders();
    return this;
  }

  // Headers that go out implicitly go through `writeHead` (the instance's: a filter may wrap it to
  // learn when they leave, as node's own responses let it).
  flushHeaders(): void {
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void): boolean {
    if (this.writableEnded || this.stream.destroyed || this.stream.closed) return false;
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
    if (typeof encoding === 'function') return this.stream.write(chunk, encoding);
    return this.stream.write(chunk, encoding ?? 'utf8', callback);
  }

  end(chunk?: string | Uint8Array | (() => void), encoding?: BufferEncoding | (() => void), callback?: () => void): this {
    if (typeof chunk === 'function') return this.end(undefined, undefined, chunk);
    if (typeof encoding === 'function') return this.end(chunk, undefined, encoding);
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (this.stream.destroyed || this.stream.closed) return this;
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
    if (chunk === undefined) this.stream.end(callback);
    else this.stream.end(chunk, encoding ?? 'utf8', callback);
    return this;
  }

  cork(): void {
    this.stream.cork();
  }

  uncork(): void {
    this.stream.uncork();
  }

  private sendHeaders(): void {
    // A stream the client already reset takes no headers (node's response skips them too).
    if (this.stream.destroyed || this.stream.closed) return;
    const headers: StreamHeaders = this.pending ?? {};
    this.pending = undefined;
    headers[':status'] = this.statusCode;
    this.stream.respond(headers);
  }
}

/** A watch stream's request and response: see {@link isWatchStream}. */
export function streamExchange(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): { request: StreamRequest; response: StreamResponse } {
  stream.on('error', ignoreStreamError);
  stream.on('close', emitExchangeClose);
  // Copied into an ordinary object: node's null-prototype headers object is a dictionary (~350 B), and
  // the request keeps its headers as long as the watch lives.
  const copy: IncomingHttpHeaders = {};
  for (const name in headers) copy[name] = headers[name];
  const request = new StreamRequest(stream, copy, rawHeaders);
  const response = new StreamResponse(stream, request);
  (stream as ExchangeStream)[exchangeKey] = response;
  return { request, response };
}
