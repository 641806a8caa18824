import type { IncomingMessage, ServerResponse } from 'node:http';
import { toStatusError, type Status } from '@kapi/apimachinery';
import type { AuthorizationDecision } from './authorizer.js';
import type { Completion } from './completion.js';

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
  /** `performance.now()` when the request arrived: what its duration is measured from. */
  readonly startedAt: number;
  /** Epoch ms after which a non-long-running request is cancelled (set by withRequestTimeout). */
  deadline?: number;
  /** True for watches and other long-running requests (exempt from max-in-flight and the timeout). */
  longRunning: boolean;
  /** Warnings to return in `Warning` headers (e.g. unknown fields under fieldValidation=Warn). */
  warnings: string[];
  /** The whole request body, when withRequestBody read it ahead of the handler. */
  body?: Buffer;
  /** What a 5xx answer was made from (recorded by writeStatus), for the server-side error log. */
  error?: unknown;
  /**
   * The authorizer's decision, set by withAuthorization: the audit event's `authorization.k8s.io/decision`
   * and `authorization.k8s.io/reason` annotations.
   */
  authorization?: AuthorizationDecision;
  /** Further annotations for the request's audit event. */
  auditAnnotations: Record<string, string>;
  /** The last Status written by writeStatus (the audit event's `responseStatus`). */
  responseStatus?: Status;
}

/** The path and query of a request target. */
export interface RequestTarget {
  /** The decoded path. */
  path: string;
  /** The query parameters (read them; do not modify). */
  query: URLSearchParams;
  /** The path's {@link pathSegments}, split once for every reader (request info, routing); do not modify. */
  readonly segments: readonly string[];
}

/** The segments of a path between its leading and trailing slashes (`/api/v1/` gives `api`, `v1`). */
export function pathSegments(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  return start === end ? [] : path.slice(start, end).split('/');
}

/** The segments of recently seen paths: a server is sent the same collection paths again and again. */
const segmentsOfPath = new Map<string, readonly string[]>();
/** Paths whose segments are kept; past it the cache starts over (object paths each come once or so). */
const segmentsCacheSize = 256;

/** {@link pathSegments}, frozen and shared by the requests for the same path. */
function recentSegments(path: string): readonly string[] {
  let segments = segmentsOfPath.get(path);
  if (segments === undefined) {
    if (segmentsOfPath.size >= segmentsCacheSize) segmentsOfPath.clear();
    segments = Object.freeze(pathSegments(path));
    segmentsOfPath.set(path, segments);
  }
  return segments;
}

/** The query of every request target without one: shared, so its mutators refuse (a request's query is read only). */
class EmptyQuery extends URLSearchParams {
  override append(): never {
    throw new TypeError("a request target's query is read only");
  }
  override delete(): never {
    return this.append();
  }
  override set(): never {
    return this.append();
  }
  override sort(): never {
    return this.append();
  }
}
const emptyQuery = new EmptyQuery();

/** A split request target whose query and segments are made on first use (most GETs have no query). */
class SplitTarget implements RequestTarget {
  private parsedQuery: URLSearchParams | undefined;
  private split: readonly string[] | undefined;

  constructor(
    readonly path: string,
    private readonly rawQuery: string,
  ) {}

  get query(): URLSearchParams {
    return (this.parsedQuery ??= this.rawQuery === '' ? emptyQuery : new URLSearchParams(this.rawQuery));
  }

  get segments(): readonly string[] {
    return (this.split ??= recentSegments(this.path));
  }
}

/**
 * Splits a request target into its decoded path and query, without URL resolution (so `//api/v1/pods`
 * stays a path, as in Go's `URL.Path`, instead of becoming a host).
 */
export function splitRequestTarget(url: string): RequestTarget {
  const hash = url.indexOf('#');
  const withoutFragment = hash < 0 ? url : url.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  const rawPath = question < 0 ? withoutFragment : withoutFragment.slice(0, question);
  return new SplitTarget(decodePath(rawPath || '/'), question < 0 ? '' : withoutFragment.slice(question + 1));
}

/** Percent-decodes a path (a malformed escape is left as it is). */
function decodePath(rawPath: string): string {
  if (!rawPath.includes('%')) return rawPath;
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}

/**
 * The request's context. The abort controller is made on first use of `signal` (most requests never
 * look at it), and aborts when the response closes without finishing: the client went away.
 */
export class Context implements RequestContext {
  requestInfo?: RequestInfo;
  user?: UserInfo;
  receivedAt = Date.now();
  readonly startedAt = performance.now();
  deadline?: number;
  longRunning = false;
  body?: Buffer;
  error?: unknown;
  authorization?: AuthorizationDecision;
  responseStatus?: Status;
  target: RequestTarget | undefined;
  response: ServerResponse | undefined;
  /** The shared reaction to the handling promise (see `afterHandling`). */
  completion: Completion | undefined;
  private controller: AbortController | undefined;
  // Made on first use: most requests have neither (an idle watch keeps its context for its whole life).
  private warningList: string[] | undefined;
  private annotations: Record<string, string> | undefined;

  get warnings(): string[] {
    return (this.warningList ??= []);
  }

  set warnings(warnings: string[]) {
    this.warningList = warnings;
  }

  get auditAnnotations(): Record<string, string> {
    return (this.annotations ??= {});
  }

  set auditAnnotations(annotations: Record<string, string>) {
    this.annotations = annotations;
  }

  /** The warnings recorded so far (none: a shared empty list, nothing made). */
  get recordedWarnings(): readonly string[] {
    return this.warningList ?? noWarnings;
  }

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    const response = this.response;
    if (response) {
      if (response.closed) {
        if (!response.writableEnded) controller.abort();
      } else {
        response.once('close', () => {
          if (!response.writableEnded) controller.abort();
        });
      }
    }
    return controller.signal;
  }

  abort(): void {
    if (!this.controller) this.controller = new AbortController();
    this.controller.abort();
  }
}

const noWarnings: readonly string[] = Object.freeze([]);

/** Where a request keeps its context: a symbol-keyed property, cheaper per request than a WeakMap entry. */
const contextKey = Symbol('kapi.request-context');

/** The request's context object (internal to this package: `requestContext` is the public view). */
export function contextOf(request: IncomingMessage): Context {
  const holder = request as IncomingMessage & { [contextKey]?: Context };
  return (holder[contextKey] ??= new Context());
}

/**
 * The context of a request, created on first use. Pass the response (the outermost filters do) so the
 * context's signal aborts when the response closes without finishing (the client went away). No
 * listener is added to the (keep-alive) socket, so nothing accumulates across requests on one connection.
 */
export function requestContext(request: IncomingMessage, response?: ServerResponse): RequestContext {
  const context = contextOf(request);
  if (response && !context.response) context.response = response;
  return context;
}

/** The request's path and query, parsed once per request. */
export function requestTarget(request: IncomingMessage): RequestTarget {
  const context = contextOf(request);
  return (context.target ??= splitRequestTarget(request.url ?? '/'));
}

/**
 * Forgets a request's parsed target (split path, parsed query), for a long-running request that has
 * read what it needs from it: an idle watch does not keep them for its whole life. A later
 * {@link requestTarget} parses the URL again.
 */
export function releaseRequestTarget(request: IncomingMessage): void {
  contextOf(request).target = undefined;
}

/** The warnings recorded for a request's `Warning` headers, read without making the list when there are none. */
export function requestWarnings(request: IncomingMessage): readonly string[] {
  return contextOf(request).recordedWarnings;
}

/** Aborts the request's context signal (used by the timeout filter and shutdown). */
export function abortRequest(request: IncomingMessage): void {
  contextOf(request).abort();
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
 * when the status carries `details.retryAfterSeconds`. The error behind a 5xx is kept in the request
 * context (`error`) for the server-side log; the client gets only the Status.
 */
export function writeStatus(response: ServerResponse, error: unknown): Status {
  const status = toStatusError(error).status;
  const request = response.req as IncomingMessage | undefined;
  if (request) {
    const context = contextOf(request);
    context.responseStatus = status;
    if (status.code >= 500) context.error ??= error;
  }
  const headers: Record<string, string> = {};
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter && retryAfter > 0) headers['Retry-After'] = String(retryAfter);
  writeJson(response, status.code, status, headers);
  return status;
}
