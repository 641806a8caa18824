import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { closeConnectionAfter } from './connection-close.js';
import { requestContext, writeStatus, type Filter } from './handler.js';
import { requestTimeoutMessage } from './with-request-timeout.js';

/** Options of {@link withRequestBody}. */
export interface RequestBodyOptions {
  /** Largest body read (upstream `MaxRequestBodyBytes`); default 3 MiB. */
  limitBytes?: number;
  /**
   * How much of a refused (413) body is still read and dropped so that the client, which is still
   * sending it, gets to read the answer instead of a broken pipe, and the connection stays usable; a body
   * longer than the limit by more than this closes the connection. Default: the limit again.
   */
  discardBytes?: number;
  /** The longest the body may take to arrive, counted from when the request was received; default 60 s. */
  timeoutMs?: number;
}

/** True when the request carries a body (a declared length above zero, or a chunked one). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return request.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads a non-long-running request's whole body into the request context (`context.body`) before the
 * filters after it run, so a client that trickles its body in holds no max-in-flight seat while it
 * does (put it just before withMaxInFlight). The read has its own deadline (`timeoutMs`, capped by the
 * request's deadline from withRequestTimeout): past it the client gets 504 Timeout and the connection
 * is closed; past `limitBytes` it gets 413, and the rest of the body (up to `discardBytes` more) is read
 * and dropped so that a client still sending it reads the 413 rather than a broken pipe.
 */
export function withRequestBody(options: RequestBodyOptions = {}): Filter {
  const limit = options.limitBytes ?? 3 * 1024 * 1024;
  const discard = options.discardBytes ?? limit;
  const timeoutMs = options.timeoutMs ?? 60_000;
  return (next) => (request, response) => {
    const context = requestContext(request, response);
    // Not an async function: a request without a body passes through at no cost.
    if (context.longRunning || context.body || !hasBody(request)) return next(request, response);
    const deadline = Math.min(context.deadline ?? Infinity, context.receivedAt + timeoutMs);
    return readWithin(request, response, limit, deadline).then(
      (body) => {
        context.body = body;
        return next(request, response);
      },
      (error: unknown) => {
        if (!(error instanceof BodyTooLarge && drain(request, error.received, limit + discard))) closeConnectionAfter(request, response);
        writeStatus(response, error);
      },
    );
  };
}

/** The 413 of a body past the limit, with how much of it was read. */
class BodyTooLarge extends StatusError {
  constructor(
    limit: number,
    readonly received: number,
  ) {
    super(StatusError.requestEntityTooLarge(`limit is ${limit}`).status);
  }
}

/**
 * Reads and drops the rest of a refused body (`received` bytes of it read so far) while it stays within
 * `maxBytes` in all: a declared length past that is not read at all (false: close the connection), and a
 * chunked body that goes past it has its request destroyed (its connection on HTTP/1, its stream on h2).
 * True when the body is being drained, so the connection can stay open.
 */
function drain(request: IncomingMessage, received: number, maxBytes: number): boolean {
  if (Number(request.headers['content-length'] ?? '0') > maxBytes) return false;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) request.destroy();
  });
  request.resume();
  return true;
}

/**
 * Reads the body, failing with 413 past `limit` bytes and 504 at `deadline` (epoch ms) or when the
 * response closes first (the client went away). The deadline is never later than the request's (the one
 * withRequestTimeout aborts the request at), so no abort signal is needed: the context's AbortController,
 * its EventTarget listener and the response listener behind it cost a create more than reading its body.
 */
function readWithin(request: IncomingMessage, response: ServerResponse, limit: number, deadline: number): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? '0') > limit) return Promise.reject(new BodyTooLarge(limit, 0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: StatusError): void => {
      clearTimeout(timer);
      response.off('close', onClose);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      if (error) {
        request.pause();
        reject(error);
      } else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)); // one chunk (most bodies): no copy
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(new BodyTooLarge(limit, size));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish();
    const onError = (): void => finish(StatusError.badRequest('the request body could not be read'));
    const onAbort = (): void => finish(StatusError.timeout(requestTimeoutMessage));
    const onClose = (): void => {
      if (!response.writableEnded) onAbort();
    };
    const timer = setTimeout(onAbort, Math.max(0, deadline - Date.now()));
    response.once('close', onClose);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}
