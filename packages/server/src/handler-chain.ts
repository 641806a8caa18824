import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { abortRequest, requestContext, writeStatus, type Filter, type RequestInfo } from '@kapi/filters';
import { resourceVerb } from './handlers/resource-handler.js';
import { parseResourcePath } from './handlers/resource-path.js';

/**
 * The server's own small filters. @kapi/filters' versions replace them once it exports them; they
 * keep the same contract (`(next) => Handler`, state in `requestContext`).
 */

/** Turns a throw or rejection of the rest of the chain into a 500 Status (or the thrown Status). */
export const withPanicRecovery: Filter = (next) => async (request, response) => {
  try {
    await next(request, response);
  } catch (error) {
    if (!response.headersSent) writeStatus(response, error);
    else response.destroy();
  }
};

/** Parses the request path into `requestContext(request).requestInfo` (unless a filter already did). */
export const withRequestInfo: Filter = (next) => (request, response) => {
  const context = requestContext(request);
  if (!context.requestInfo) context.requestInfo = requestInfoOf(request);
  if (context.requestInfo.verb === 'watch') context.longRunning = true;
  return next(request, response);
};

/** k8s.io/apiserver RequestInfo for a request. */
export function requestInfoOf(request: IncomingMessage): RequestInfo {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  const parsed = parseResourcePath(url.pathname);
  if (!parsed) {
    return {
      isResourceRequest: false,
      path: url.pathname,
      verb: method.toLowerCase(),
      apiPrefix: '',
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
      parts: [],
    };
  }
  return {
    isResourceRequest: true,
    path: url.pathname,
    verb: resourceVerb(method, parsed, url.searchParams),
    apiPrefix: url.pathname.startsWith('/apis/') ? 'apis' : 'api',
    apiGroup: parsed.group,
    apiVersion: parsed.version,
    namespace: parsed.namespace,
    resource: parsed.resource,
    subresource: parsed.subresource,
    name: parsed.name,
    parts: [parsed.resource, parsed.name, parsed.subresource].filter(Boolean),
  };
}

const readOnlyVerbs = new Set(['get', 'list', 'watch', 'head', 'options']);

/** Limits concurrent non-long-running requests: 429 with Retry-After 1 past the limit (0 disables). */
export function withMaxInFlight(limits: { readOnly: number; mutating: number }): Filter {
  const current = { readOnly: 0, mutating: 0 };
  return (next) => async (request, response) => {
    const context = requestContext(request);
    if (context.longRunning) return next(request, response);
    const kind = readOnlyVerbs.has(context.requestInfo?.verb ?? '') ? 'readOnly' : 'mutating';
    if (limits[kind] > 0 && current[kind] >= limits[kind]) {
      writeStatus(response, StatusError.tooManyRequests('Too many requests, please try again later.', 1));
      return;
    }
    current[kind] += 1;
    try {
      await next(request, response);
    } finally {
      current[kind] -= 1;
    }
  };
}

/** Answers 504 and aborts the request's signal when a non-long-running request outlives `timeoutMs`. */
export function withRequestTimeout(timeoutMs: number): Filter {
  return (next) => async (request, response) => {
    const context = requestContext(request);
    if (context.longRunning || timeoutMs <= 0) return next(request, response);
    context.deadline = context.receivedAt + timeoutMs;
    const timer = setTimeout(() => {
      if (!response.headersSent) writeStatus(response, StatusError.timeout('Timeout: request did not complete within the allotted timeout'));
      abortRequest(request);
    }, timeoutMs);
    try {
      await next(request, response);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** CORS for origins matching one of the regular expressions; answers preflight OPTIONS with 204. */
export function withCors(allowedOrigins: readonly string[]): Filter {
  const patterns = allowedOrigins.map((origin) => new RegExp(origin));
  return (next) => (request: IncomingMessage, response: ServerResponse) => {
    const origin = request.headers.origin;
    if (origin === undefined || patterns.length === 0 || !patterns.some((pattern) => pattern.test(origin))) return next(request, response);
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
    response.setHeader('Access-Control-Expose-Headers', 'Date');
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    if (request.method === 'OPTIONS') {
      response.writeHead(204);
      response.end();
      return;
    }
    return next(request, response);
  };
}
