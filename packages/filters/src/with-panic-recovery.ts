import type { IncomingMessage, ServerResponse } from 'node:http';
import { abortResponse } from './abort-response.js';
import { afterHandling, type Outcome } from './completion.js';
import { writeStatus, type Filter, requestContext } from './handler.js';

/** Options of {@link withPanicRecovery}. */
export interface PanicRecoveryOptions {
  /** Called with every error caught (for logging); must not throw. */
  onError?: (error: unknown, request: IncomingMessage) => void;
}

/**
 * Turns anything thrown or rejected below into a Kubernetes Status response through the one
 * normaliser (unknown errors become 500 InternalError). When the response has already started, the
 * only honest signal left is to cut the connection (HTTP/2: to reset the stream).
 */
export function withPanicRecovery(options: PanicRecoveryOptions = {}): Filter {
  const recover = (error: unknown, request: IncomingMessage, response: ServerResponse): void => {
    options.onError?.(error, request);
    if (response.headersSent) {
      abortResponse(request, response);
      return;
    }
    writeStatus(response, error);
  };
  const recoverFailure = (request: IncomingMessage, response: ServerResponse, outcome: Outcome): void => {
    if (!outcome.failed) return;
    const error = outcome.error;
    outcome.failed = false;
    outcome.error = undefined;
    recover(error, request, response);
  };
  // Not an async function: a handler that answers synchronously costs no promise here, and an
  // asynchronous one adds a step to the reaction the filters share (no promise or closure of its own).
  return (next) => (request, response) => {
    requestContext(request, response);
    let work: void | Promise<void>;
    try {
      work = next(request, response);
    } catch (error) {
      recover(error, request, response);
      return;
    }
    if (work) return afterHandling(request, response, work, recoverFailure);
  };
}
