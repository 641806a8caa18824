import { StatusError } from '@kapi/apimachinery';
import { abortResponse } from './abort-response.js';
import { abortRequest, requestContext, requestTarget, writeStatus, type Filter } from './handler.js';
import { parseGoDuration } from './go-duration.js';

/** Options of {@link withRequestTimeout}. */
export interface RequestTimeoutOptions {
  /** The longest a non-long-running request may take (`--request-timeout`); default 60 s. */
  timeoutMs?: number;
}

/** Upstream's timeout status text (NewTimeoutError adds the `Timeout: ` prefix). */
export const requestTimeoutMessage = 'Timeout: request did not complete within the allotted timeout';

/**
 * Times out non-long-running requests (WithRequestDeadline + WithTimeoutForNonLongRunningRequests).
 * The deadline is `receivedAt + timeout`, where the timeout is `timeoutMs` or a shorter positive
 * `?timeout=` (Go duration) from the URL; a bad `?timeout=` gets 400. On expiry the context signal
 * is aborted and the client gets 504 Timeout, or, when the response had already started, the
 * connection is cut (HTTP/2: the stream is reset). Whatever the handler does afterwards is ignored.
 */
export function withRequestTimeout(options: RequestTimeoutOptions = {}): Filter {
  const maximum = options.timeoutMs ?? 60_000;
  return (next) => (request, response) => {
    const context = requestContext(request);
    if (context.longRunning) return next(request, response);

    let timeout = maximum;
    const query = requestTarget(request).query.get('timeout');
    if (query) {
      let requested: number;
      try {
        requested = parseGoDuration(query);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        writeStatus(
          response,
          StatusError.badRequest(`invalid timeout specified in the request URL - ${detail}`),
        );
        return;
      }
      if (requested > 0 && requested < maximum) timeout = requested;
    }
    context.deadline = context.receivedAt + timeout;

    // One timer per request. On expiry the request is cancelled and answered with a 504 (or its connection
    // cut when the response has begun), and this filter returns; the handler's later writes are dropped.
    let expire: (() => void) | undefined;
    const timer = setTimeout(() => {
      response.on('error', () => undefined);
      abortRequest(request);
      if (response.headersSent) {
        abortResponse(request, response);
      } else {
        writeStatus(response, StatusError.timeout(requestTimeoutMessage));
      }
      expire?.();
    }, Math.max(0, context.deadline - Date.now()));
    let work: void | Promise<void>;
    try {
      work = next(request, response);
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    if (!work) {
      clearTimeout(timer);
      return;
    }
    const handled = work;
    return new Promise<void>((resolve, reject) => {
      expire = resolve;
      handled.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
}
