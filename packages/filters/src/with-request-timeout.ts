import { StatusError } from '@kapi/apimachinery';
import { abortRequest, requestContext, writeStatus, type Filter } from './handler.js';
import { parseGoDuration } from './go-duration.js';
import { splitRequestTarget } from './request-info.js';

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
 * connection is cut. Whatever the handler does afterwards is ignored.
 */
export function withRequestTimeout(options: RequestTimeoutOptions = {}): Filter {
  const maximum = options.timeoutMs ?? 60_000;
  return (next) => async (request, response) => {
    const context = requestContext(request);
    if (context.longRunning) return next(request, response);

    let timeout = maximum;
    const query = splitRequestTarget(request.url ?? '/').query.get('timeout');
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

    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, context.deadline! - Date.now()));
    });
    const work = Promise.resolve().then(() => next(request, response));
    try {
      const outcome = await Promise.race([work.then(() => 'done' as const), expired]);
      if (outcome === 'done') return;
    } finally {
      clearTimeout(timer);
    }

    // Timed out: the handler keeps running with an aborted signal; its late writes and errors go nowhere.
    work.catch(() => undefined);
    response.on('error', () => undefined);
    abortRequest(request);
    if (response.headersSent) {
      response.destroy();
      request.socket?.destroy();
      return;
    }
    writeStatus(response, StatusError.timeout(requestTimeoutMessage));
  };
}
