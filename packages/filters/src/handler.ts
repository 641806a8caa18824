import type { IncomingMessage, ServerResponse } from 'node:http';
import { toStatusError, type Status } from '@kapi/apimachinery';

/** An HTTP handler. It may be async; a rejected promise is a failure the panic-recovery filter turns into a 500. */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A handler-chain filter: wraps the next handler. Named `withX`. */
export type Filter = (next: Handler) => Handler;

/**
 * Composes filters written **outermost first** (the order a request passes through them) around the
 * innermost handler.
 */
export function buildHandlerChain(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler);
}

/** The parsed Kubernetes request path (k8s.io/apiserver RequestInfo). */
export interface RequestInfo {
  isResourceRequest: boolean;
  /** URL path. */
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection; for non-resource requests the lower-case HTTP method. */
  verb: string;
  /** `api` or `apis` (empty for non-resource requests). */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the namespace (resource, name, subresource). */
  parts: string[];
}

/** An authenticated user. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Per-request state shared by the filters and the handler. */
export interface RequestContext {
  /** Set by withRequestInfo. */
  requestInfo?: RequestInfo;
  /** Set by withAuthentication. */
  user?: UserInfo;
  /** Aborts when the client goes away, the request times out, or the server shuts down. */
  signal: AbortSignal;
  /** Epoch ms when the request arrived. */
  receivedAt: number;
  /** Epoch ms after which a non-long-running request is cancelled (set by withRequestTimeout). */
  deadline?: number;
  /** True for watches and other long-running requests (exempt from max-in-flight and the timeout). */
  longRunning: boolean;
  /** Warnings to return in `Warning` headers (e.g. unknown fields under fieldValidation=Warn). */
  warnings: string[];
}

const contexts = new WeakMap<IncomingMessage, RequestContext>();
const controllers = new WeakMap<IncomingMessage, AbortController>();
const boundResponses = new WeakSet<IncomingMessage>();

/**
 * The context of a request, created on first use. Pass the response (the outermost filters do) so the
 * context's signal aborts when the response closes: finished, or the client went away. No listener is
 * added to the (keep-alive) socket, so nothing accumulates across requests on one connection.
 */
export function requestContext(request: IncomingMessage, response?: ServerResponse): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    const abort = new AbortController();
    controllers.set(request, abort);
    context = { signal: abort.signal, receivedAt: Date.now(), longRunning: false, warnings: [] };
    contexts.set(request, context);
  }
  if (response && !boundResponses.has(request)) {
    boundResponses.add(request);
    // Abort only when the response did not complete (client gone, connection reset): a finished request
    // needs no signal, and aborting creates an exception object per request.
    response.once('close', () => {
      if (!response.writableFinished) controllers.get(request)?.abort();
    });
  }
  return context;
}

/** Aborts the request's context signal (used by the timeout filter and shutdown). */
export function abortRequest(request: IncomingMessage): void {
  requestContext(request);
  controllers.get(request)?.abort();
}

/** Writes a JSON body with the given status code. */
export function writeJson(
  response: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const data = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(data),
    ...headers,
  });
  response.end(data);
}

/**
 * Writes anything thrown as a Kubernetes Status (through the one normaliser), with `Retry-After`
 * when the status carries `details.retryAfterSeconds`.
 */
export function writeStatus(response: ServerResponse, error: unknown): Status {
  const status = toStatusError(error).status;
  const headers: Record<string, string> = {};
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter && retryAfter > 0) headers['Retry-After'] = String(retryAfter);
  writeJson(response, status.code, status, headers);
  return status;
}
