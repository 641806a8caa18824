import type { IncomingMessage } from 'node:http';
import { abortResponse } from './abort-response.js';
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
  return (next) => async (request, response) => {
    requestContext(request, response);
    try {
      await next(request, response);
    } catch (error) {
      options.onError?.(error, request);
      if (response.headersSent) {
        abortResponse(request, response);
        return;
      }
      writeStatus(response, error);
    }
  };
}
