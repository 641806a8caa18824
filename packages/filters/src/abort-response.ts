import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants } from 'node:http2';

/** The HTTP/2 stream behind a compatibility response. */
interface StreamResponse {
  stream?: { destroyed: boolean; close(code: number): void };
}

/**
 * Cuts a response that has already started, the only honest signal left to the client. HTTP/1.x: the
 * connection is destroyed. HTTP/2: only this request's stream is reset with INTERNAL_ERROR, as Go's
 * server does for an aborted handler; the session and its other streams (watches) go on.
 */
export function abortResponse(request: IncomingMessage, response: ServerResponse): void {
  const stream = request.httpVersionMajor >= 2 ? (response as ServerResponse & StreamResponse).stream : undefined;
  if (stream) {
    if (!stream.destroyed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  response.destroy();
  request.socket?.destroy();
}
