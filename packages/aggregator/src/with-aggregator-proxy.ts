import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { requestContext, requestTarget, type Filter } from '@kapi/filters';
import type { APIService } from './apiservice-kind.js';
import { identityHeaders, type BackendAgents } from './backend-transport.js';
import { isEndpointFailure, resolveEndpoint, type ServiceLookup } from './endpoint-resolver.js';

/** What the proxy reads: the APIService of a group/version, and Services/EndpointSlices. */
export interface ProxyLookup extends ServiceLookup {
  apiService(group: string, version: string): APIService | undefined;
}

/** Options of {@link withAggregatorProxy}. */
export interface AggregatorProxyOptions {
  lookup: ProxyLookup;
  agents: BackendAgents;
}

/** Headers that are never forwarded: hop-by-hop ones, credentials and identity the proxy sets itself. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);
const strippedPrefixes = ['impersonate-', 'x-remote-'];

function forwardedHeaders(request: IncomingMessage, bodyLength: number | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) {
    // HTTP/2 pseudo-headers (`:method`, `:path`, ...) describe the incoming stream, not the backend request.
    if (value === undefined || name.startsWith(':') || hopByHop.has(name) || name === 'authorization') continue;
    if (strippedPrefixes.some((prefix) => name.startsWith(prefix))) continue;
    headers[name] = value;
  }
  if (bodyLength !== undefined) headers['content-length'] = String(bodyLength);
  return headers;
}

/** Upstream's answer when an APIService cannot be served: 503, `text/plain`. */
function serviceUnavailable(response: ServerResponse, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = `${message}\n`;
  response.writeHead(503, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}

function isAvailable(apiService: APIService): boolean {
  return apiService.status?.conditions?.some((condition) => condition.type === 'Available' && condition.status === 'True') ?? false;
}

/**
 * The APIService of a path under `/apis/<group>/<version>` or `/openapi/v3/apis/<group>/<version>`, if
 * any: read from the path's segments, split once per request for every filter and the router.
 */
function apiServiceOf(segments: readonly string[], lookup: ProxyLookup): APIService | undefined {
  let at: number;
  if (segments[0] === 'apis') at = 1;
  else if (segments[0] === 'openapi' && segments[1] === 'v3' && segments[2] === 'apis' && segments.length === 5) at = 3;
  else return undefined;
  const group = segments[at];
  const version = segments[at + 1];
  return group && version ? lookup.apiService(group, version) : undefined;
}

/**
 * Proxies requests under `/apis/<group>/<version>` (and its OpenAPI v3 document) of a remote APIService (one with `spec.service`) to
 * its backend, as kube-aggregator: the endpoint comes from the Service's EndpointSlices, TLS is verified
 * with the APIService's `caBundle` against `<service>.<namespace>.svc` (or skipped with
 * `insecureSkipTLSVerify`), the aggregator presents its proxy client certificate, and the authenticated
 * user goes as `X-Remote-User`/`X-Remote-Group`/`X-Remote-Extra-*` (incoming ones, `Authorization` and
 * `Impersonate-*` are dropped). Responses, watches included, are streamed as they arrive; the backend
 * request is aborted when the client goes away. An APIService that is not Available, or a backend that
 * cannot be reached, gets 503. Everything else goes to `next`.
 */
export function withAggregatorProxy(options: AggregatorProxyOptions): Filter {
  return (next) => (request, response) => {
    const apiService = apiServiceOf(requestTarget(request).segments, options.lookup);
    if (!apiService?.spec.service) return next(request, response);
    if (!isAvailable(apiService)) return serviceUnavailable(response, 'service unavailable');
    const endpoint = resolveEndpoint(apiService, options.lookup);
    if (isEndpointFailure(endpoint)) return serviceUnavailable(response, 'service unavailable');
    return proxy(request, response, apiService, endpoint, options);
  };
}

function proxy(
  request: IncomingMessage,
  response: ServerResponse,
  apiService: APIService,
  endpoint: { host: string; port: number; serverName: string },
  options: AggregatorProxyOptions,
): Promise<void> {
  const context = requestContext(request, response);
  const body = context.body;
  const headers = forwardedHeaders(request, body?.length);
  if (context.user) Object.assign(headers, identityHeaders(context.user));
  headers.host = `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
  return new Promise<void>((resolve) => {
    const upstream = httpsRequest({
      host: endpoint.host,
      port: endpoint.port,
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers,
      agent: options.agents.agentFor(apiService, endpoint),
    });
    upstream.setNoDelay(true);
    // The client going away (an HTTP/1.1 socket or an HTTP/2 stream closing early) ends the backend request.
    const abort = () => upstream.destroy();
    const clientGone = () => {
      if (!response.writableEnded) abort();
    };
    context.signal.addEventListener('abort', abort, { once: true });
    response.once('close', clientGone);
    const finish = () => {
      context.signal.removeEventListener('abort', abort);
      response.off('close', clientGone);
      resolve();
    };
    upstream.once('close', finish);
    upstream.on('response', (answer) => {
      if (response.headersSent) {
        upstream.destroy();
        return finish();
      }
      const answerHeaders: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !hopByHop.has(name)) answerHeaders[name] = value;
      }
      response.writeHead(answer.statusCode ?? 502, answerHeaders);
      // A watch's headers go out at once (its first event may be long in coming); otherwise they leave with
      // the first chunk. Chunks go out as they come, nothing is buffered.
      if (context.longRunning) response.flushHeaders();
      answer.pipe(response);
      answer.once('close', () => {
        // A backend that goes away mid-stream cuts the client's stream too.
        if (!answer.complete) response.destroy();
        finish();
      });
    });
    upstream.on('error', (error) => {
      if (!context.signal.aborted) serviceUnavailable(response, `Error trying to reach service: '${error.message}'`);
      finish();
    });
    if (body) upstream.end(body);
    else if (request.headers['content-length'] || request.headers['transfer-encoding']) request.pipe(upstream);
    else upstream.end();
  });
}
