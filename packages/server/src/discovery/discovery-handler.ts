import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  servedGroups,
  type InstalledResource,
  type ServerAddressByClientCIDR,
} from './discovery-documents.js';
import { failureStatus, rejectNonGet, requestPath, sendBody, sendJson, sendNotFound, type PathHandler } from './http-response.js';

/** Options of {@link createDiscoveryHandler}. */
export interface DiscoveryHandlerOptions {
  /** The resources served right now (read on every request, so installs show up at once). */
  resources: () => InstalledResource[];
  /**
   * `serverAddressByClientCIDRs` of `/api` (and of each group in `/apis`). Default: `0.0.0.0/0` mapped to
   * the address and port the client connected to.
   */
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[] | ((request: IncomingMessage) => ServerAddressByClientCIDR[]);
  /**
   * When true, paths under `/api` and `/apis` naming an unknown group or version are left unserved
   * (the handler returns false) so a delegate can answer them; default false: a 404 Status.
   */
  passUnknown?: boolean;
}

type AggregatedVersion = 'v2' | 'v2beta1';

/** The aggregated discovery media type for a version, as sent in Accept and echoed in Content-Type. */
export function aggregatedDiscoveryMediaType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

const acceptedMediaTypes = [
  'application/json',
  aggregatedDiscoveryMediaType('v2'),
  aggregatedDiscoveryMediaType('v2beta1'),
];

interface MediaRange {
  type: string;
  parameters: Map<string, string>;
  quality: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((entry, index) => {
      const [type = '', ...rest] = entry.split(';').map((part) => part.trim());
      const parameters = new Map<string, string>();
      for (const part of rest) {
        const equals = part.indexOf('=');
        if (equals > 0) parameters.set(part.slice(0, equals).trim().toLowerCase(), part.slice(equals + 1).trim());
      }
      const quality = Number(parameters.get('q') ?? '1');
      parameters.delete('q');
      return { range: { type: type.toLowerCase(), parameters, quality: Number.isFinite(quality) ? quality : 0 }, index };
    })
    .filter(({ range }) => range.type !== '' && range.quality > 0)
    .sort((a, b) => b.range.quality - a.range.quality || a.index - b.index)
    .map(({ range }) => range);
}

/**
 * What the client accepts for `/api` and `/apis`: aggregated discovery (v2 or v2beta1), the legacy
 * JSON documents, or nothing this server can produce.
 */
export function negotiateDiscovery(accept: string | undefined): 'legacy' | AggregatedVersion | undefined {
  if (!accept || accept.trim() === '') return 'legacy';
  for (const range of parseAccept(accept)) {
    const jsonLike = range.type === 'application/json' || range.type === 'application/*' || range.type === '*/*';
    if (!jsonLike) continue;
    if (range.parameters.size === 0) return 'legacy';
    const group = range.parameters.get('g');
    const version = range.parameters.get('v');
    const as = range.parameters.get('as');
    if (range.type === 'application/json' && group === 'apidiscovery.k8s.io' && as === 'APIGroupDiscoveryList') {
      if (version === 'v2' || version === 'v2beta1') return version;
    }
  }
  return undefined;
}

function defaultAddresses(request: IncomingMessage): ServerAddressByClientCIDR[] {
  const socket = request.socket;
  const host = socket.localAddress ?? '127.0.0.1';
  const address = host.includes(':') && !host.startsWith('::ffff:') ? `[${host}]` : host.replace(/^::ffff:/, '');
  return [{ clientCIDR: '0.0.0.0/0', serverAddress: `${address}:${socket.localPort ?? 0}` }];
}

/**
 * Serves discovery: `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>` and, when the
 * client negotiates it, aggregated discovery v2/v2beta1 on `/api` and `/apis`. Returns true when it
 * served the request; deeper paths (`/api/v1/pods`) are left to the resource handlers.
 */
export function createDiscoveryHandler(options: DiscoveryHandlerOptions): PathHandler {
  const addressesFor = (request: IncomingMessage): ServerAddressByClientCIDR[] => {
    const configured = options.serverAddressByClientCIDRs;
    if (configured === undefined) return defaultAddresses(request);
    return typeof configured === 'function' ? configured(request) : configured;
  };

  return (request, response) => {
    const path = requestPath(request).replace(/\/+$/, '');
    const segments = path.split('/').slice(1);
    const root = segments[0];
    if (root !== 'api' && root !== 'apis') return false;
    const depth = root === 'api' ? 2 : 3;
    if (segments.length > depth) return false;

    const resources = options.resources();
    const unknown = (): boolean => {
      if (options.passUnknown) return false;
      if (!rejectNonGet(request, response)) sendNotFound(request, response);
      return true;
    };

    if (segments.length === 1) {
      if (rejectNonGet(request, response)) return true;
      serveRoot(request, response, root, resources, addressesFor(request));
      return true;
    }
    if (root === 'api') {
      const list = apiResourceListDocument(resources, '', segments[1] ?? '');
      if (!list) return unknown();
      if (!rejectNonGet(request, response)) sendJson(request, response, 200, list);
      return true;
    }
    const groupName = segments[1] ?? '';
    const group = groupName === '' ? undefined : servedGroups(resources).find((candidate) => candidate.name === groupName);
    if (!group) return unknown();
    if (segments.length === 2) {
      if (!rejectNonGet(request, response)) sendJson(request, response, 200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupDocument(group) });
      return true;
    }
    const list = apiResourceListDocument(resources, groupName, segments[2] ?? '');
    if (!list) return unknown();
    if (!rejectNonGet(request, response)) sendJson(request, response, 200, list);
    return true;
  };
}

function serveRoot(
  request: IncomingMessage,
  response: ServerResponse,
  root: 'api' | 'apis',
  resources: InstalledResource[],
  addresses: ServerAddressByClientCIDR[],
): void {
  const negotiated = negotiateDiscovery(request.headers.accept);
  if (negotiated === undefined) {
    sendJson(
      request,
      response,
      406,
      failureStatus(406, 'NotAcceptable', `only the following media types are accepted: ${acceptedMediaTypes.join(', ')}`),
    );
    return;
  }
  if (negotiated === 'legacy') {
    const document = root === 'api' ? apiVersionsDocument(resources, addresses) : apiGroupListDocument(resources, addresses);
    sendJson(request, response, 200, document, { Vary: 'Accept' });
    return;
  }
  const body = JSON.stringify(aggregatedDiscoveryDocument(resources, root, negotiated));
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  const headers = { 'Content-Type': aggregatedDiscoveryMediaType(negotiated), Vary: 'Accept', ETag: etag };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  sendBody(request, response, 200, body, headers);
}
