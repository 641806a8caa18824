import type { Socket } from 'node:net';

/** What node's HTTP parser reports for a request it could not read. */
interface ParserError extends Error {
  code?: string;
}

/**
 * A `clientError` listener answering node's own parser failures as a Kubernetes Status (JSON) instead of
 * node's bare text: 431 for headers past the limit, 408 for a request timeout, 400 for anything else
 * unparsable. Connections already reset, not writable or failing their TLS handshake are just destroyed.
 */
export function answerClientError(error: ParserError, socket: Socket): void {
  // The HTTP/2 server also reports failed TLS handshakes here: no HTTP answer fits those.
  const tlsFailure = error.code?.startsWith('ERR_SSL_') === true || error.code?.startsWith('ERR_TLS_') === true;
  if (error.code === 'ECONNRESET' || tlsFailure || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, '', 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Timeout', 'Request Timeout']
        : [400, 'BadRequest', 'Bad Request'];
  // No Kubernetes StatusReason names a 431: the reason is left out (StatusReasonUnknown), as for other codes.
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), code });
  socket.end(
    `HTTP/1.1 ${code} ${message}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
