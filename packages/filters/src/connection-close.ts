import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Asks the client to close its connection after this response (`Connection: close`). Only HTTP/1.x
 * has that header: HTTP/2 forbids connection-specific headers (RFC 9113 8.2.2), so on an h2 stream
 * nothing is set and the session stays up for the client's other streams.
 */
export function closeConnectionAfter(request: IncomingMessage, response: ServerResponse): void {
  if (request.httpVersionMajor < 2) response.setHeader('Connection', 'close');
}
