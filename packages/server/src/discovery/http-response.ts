import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Small response helpers shared by the platform endpoints (discovery, OpenAPI, health, metrics, version).
 * Internal: not exported from the package.
 */

/** A handler that reports whether it served the request. */
export type PathHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** The request path without the query string. */
export function requestPath(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The parsed query string. */
export function requestQuery(request: IncomingMessage): URLSearchParams {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
}

/** Writes a body with a status code; HEAD requests get the headers only. */
export function sendBody(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  body: string | Uint8Array,
  headers: Record<string, string>,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(code, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Writes a JSON document. */
export function sendJson(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBody(request, response, code, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers });
}

/** A failure `Status` (metav1.Status) with the given code, reason and message. */
export function failureStatus(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: {}, code };
}

/** The 404 Status upstream returns for paths nothing serves. */
export function sendNotFound(request: IncomingMessage, response: ServerResponse): void {
  sendJson(request, response, 404, failureStatus(404, 'NotFound', 'the server could not find the requested resource'));
}

/** The 405 Status for a method other than GET/HEAD on a read-only endpoint; true when it was sent. */
export function rejectNonGet(request: IncomingMessage, response: ServerResponse): boolean {
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return false;
  sendJson(
    request,
    response,
    405,
    failureStatus(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`),
  );
  return true;
}
