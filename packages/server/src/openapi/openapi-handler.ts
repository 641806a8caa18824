import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GroupVersionKind } from '@kapi/apimachinery';
import { servedGroups, type InstalledResource } from '../discovery/discovery-documents.js';
import { failureStatus, rejectNonGet, requestPath, requestQuery, sendBody, sendJson, type PathHandler } from '../discovery/http-response.js';
import { metaDefinitions, type JSONSchema } from './meta-definitions.js';
import { operationTag, resourcePaths } from './openapi-paths.js';
import { encodeOpenAPIV2Protobuf, OPENAPI_V2_PROTOBUF_CONTENT_TYPE, OPENAPI_V2_PROTOBUF_MEDIA_TYPES } from './openapi-v2-protobuf.js';
import { customResourceDefinitionName, defaultDefinitionName, refFor, resourceDefinitions, type DefinitionNamer, type OpenAPIFlavour } from './openapi-schemas.js';
import { groupVersionDiscovery, rootV3Document, rootV3Paths, swaggerPartOf } from './root-documents.js';
import { externalSubresources } from './subresource-definitions.js';
import type { ResourceDefinition } from '../resource-definition.js';

/**
 * Paths and definitions served by another server (an aggregator's backend), merged into `/openapi/v2`;
 * `key` changes whenever they do (e.g. a hash of the backend's document).
 */
export interface OpenAPIV2Part {
  key: string;
  paths: Record<string, JSONSchema>;
  definitions: Record<string, JSONSchema>;
}

/** Options of {@link createOpenAPIHandler} and the document builders. */
export interface OpenAPIOptions {
  /** The resources served right now. */
  resources: () => InstalledResource[];
  /** A kind's JSON schema (e.g. `scheme.openAPISchema(gvk)`); undefined gives a permissive object schema. */
  schemaFor: (gvk: GroupVersionKind) => JSONSchema | undefined;
  /** Definition names; default {@link defaultDefinitionName} (`io.k8s.api.core.v1.ConfigMap`, `com.example.v1.Widget`). */
  definitionName?: DefinitionNamer;
  /**
   * Whether PATCH operations list strategic merge patch. Default: every kind but custom resources, which
   * refuse it as upstream's (kubectl sends a strategic merge patch wherever the document lists it).
   */
  strategicMergePatch?: boolean | ((definition: ResourceDefinition) => boolean);
  /** `info.title` (default `Kubernetes`) and `info.version` (default `v1.34.0`). */
  title?: string;
  version?: string;
  /**
   * More entries of the `/openapi/v3` index, served elsewhere (an aggregator's backends): path (`apis/<group>/<version>`)
   * to `serverRelativeURL`.
   */
  extraV3Paths?: () => Record<string, string>;
  /**
   * OpenAPI 3 documents of more root endpoints this server serves outside its resources, keyed by index path
   * (e.g. `serviceAccountIssuerDiscoveryDocuments()`: `.well-known/openid-configuration`, `openid/v1/jwks`);
   * listed in `/openapi/v3` and served with the same hashes and caching as the others.
   */
  extraV3Documents?: () => Record<string, JSONSchema>;
  /** More paths and definitions of `/openapi/v2`, served elsewhere; the server's own win a conflict. */
  extraV2?: () => OpenAPIV2Part[];
}

interface Resolved {
  resources: InstalledResource[];
  schemaFor: OpenAPIOptions['schemaFor'];
  definitionName: (gvk: GroupVersionKind) => string;
  /** Names of custom resources' definitions (the reversed group for every group, `*.k8s.io` too). */
  customDefinitionName: (gvk: GroupVersionKind) => string;
  smp: (definition: ResourceDefinition) => boolean;
  info: { title: string; version: string };
}

function resolve(options: OpenAPIOptions): Resolved {
  const custom = options.definitionName;
  const smp = options.strategicMergePatch ?? ((definition: ResourceDefinition) => !definition.customResource);
  return {
    resources: options.resources(),
    schemaFor: (gvk) => {
      try {
        return options.schemaFor(gvk);
      } catch {
        return undefined;
      }
    },
    definitionName: (gvk) => custom?.(gvk) ?? defaultDefinitionName(gvk),
    customDefinitionName: (gvk) => custom?.(gvk) ?? customResourceDefinitionName(gvk),
    smp: typeof smp === 'function' ? smp : () => smp,
    info: { title: options.title ?? 'Kubernetes', version: options.version ?? 'v1.34.0' },
  };
}

function collect(resolved: Resolved, flavour: OpenAPIFlavour, filter: (definition: ResourceDefinition, version: string) => boolean) {
  const definitions: Record<string, JSONSchema> = {};
  const paths: Record<string, JSONSchema> = {};
  for (const installed of resolved.resources) {
    for (const version of installed.definition.versions) {
      if (!filter(installed.definition, version)) continue;
      const definitionName = installed.definition.customResource ? resolved.customDefinitionName : resolved.definitionName;
      Object.assign(definitions, resourceDefinitions(installed, version, { schemaFor: resolved.schemaFor, definitionName, flavour }));
      Object.assign(
        paths,
        resourcePaths(installed, version, { flavour, definitionName, strategicMergePatch: resolved.smp(installed.definition) }),
      );
    }
  }
  Object.assign(definitions, metaDefinitions(refFor(flavour)));
  return { definitions: sortKeys(definitions), paths: sortKeys(paths) };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The Swagger 2.0 document of every served resource (`/openapi/v2`). */
export function buildOpenAPIV2(options: OpenAPIOptions): JSONSchema {
  const resolved = resolve(options);
  const { definitions, paths } = collect(resolved, 'v2', () => true);
  // The discovery and root endpoints, as upstream's /openapi/v2 lists them beside the resources.
  const groups = servedGroups(resolved.resources);
  const documents = [
    ...rootV3Paths(groups.map((group) => group.name)).map((key) => rootV3Document(key, groups.map((group) => group.name), resolved.info)),
    ...groups.flatMap((group) =>
      group.versions.map((version) => {
        const { paths: discovery, schemas } = groupVersionDiscovery(group.name, version, operationTag(group.name, version));
        return { paths: discovery, components: { schemas } };
      }),
    ),
    ...Object.values(options.extraV3Documents?.() ?? {}),
  ];
  for (const document of documents) {
    if (!document) continue;
    const part = swaggerPartOf(document);
    for (const [path, item] of Object.entries(part.paths)) paths[path] ??= item;
    for (const [name, definition] of Object.entries(part.definitions)) definitions[name] ??= definition;
  }
  for (const part of options.extraV2?.() ?? []) {
    for (const [path, item] of Object.entries(part.paths)) paths[path] ??= item;
    for (const [name, definition] of Object.entries(part.definitions)) definitions[name] ??= definition;
  }
  return {
    swagger: '2.0',
    info: resolved.info,
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

/**
 * The keys of the `/openapi/v3` index, sorted as upstream's: `api/v1` and `apis/<group>/<version>` for every
 * served group-version, plus the root entries upstream lists (`api`, `apis`, `apis/<group>`, `version`).
 */
export function openAPIV3Paths(resources: readonly InstalledResource[]): string[] {
  const groups = servedGroups(resources);
  const groupVersions = groups.flatMap((group) => group.versions.map((version) => (group.name === '' ? `api/${version}` : `apis/${group.name}/${version}`)));
  return [...groupVersions, ...rootV3Paths(groups.map((group) => group.name))].sort();
}

/**
 * The OpenAPI 3.0 document of a root entry of the `/openapi/v3` index: `api` (GET /api/), `apis` (GET /apis/),
 * `apis/<group>` (GET /apis/<group>/ of a served group), `version` (GET /version/); undefined for any other key.
 */
export function buildOpenAPIV3Root(options: OpenAPIOptions, key: string): JSONSchema | undefined {
  const resolved = resolve(options);
  return rootV3Document(key, servedGroups(resolved.resources).map((group) => group.name), resolved.info);
}

/** The OpenAPI 3.0 document of one group-version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`), or undefined. */
export function buildOpenAPIV3(options: OpenAPIOptions, group: string, version: string): JSONSchema | undefined {
  const resolved = resolve(options);
  const served = resolved.resources.some(({ definition }) => definition.group === group && definition.versions.includes(version));
  if (!served) return undefined;
  const { definitions, paths } = collect(resolved, 'v3', (definition, candidate) => definition.group === group && candidate === version);
  const discovery = groupVersionDiscovery(group, version, operationTag(group, version));
  return {
    openapi: '3.0.0',
    info: resolved.info,
    paths: sortKeys({ ...paths, ...discovery.paths }),
    components: {
      schemas: sortKeys({ ...definitions, ...discovery.schemas }),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

/** What the documents depend on: the definitions and their schemas (a changed CRD schema changes the key). */
function contentKey(options: OpenAPIOptions): string {
  const resolved = resolve(options);
  return JSON.stringify([
    ...resolved.resources.map(({ definition }) => [
      definition,
      definition.versions.map((version) => resolved.schemaFor({ group: definition.group, version, kind: definition.kind }) ?? null),
      externalSubresources(definition).map(({ kind }) => resolved.schemaFor(kind) ?? null),
    ]),
    options.extraV2?.().map((part) => part.key) ?? [],
    options.extraV3Documents?.() ?? {},
  ]);
}

function hashOf(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

type OpenAPIMediaType = 'application/json' | (typeof OPENAPI_V2_PROTOBUF_MEDIA_TYPES)[number];

/**
 * The media type to answer with, as kube-openapi negotiates: Accept clauses by descending `q`, the first
 * one JSON (or, when `protobuf`, gnostic protobuf) matches; undefined when none does (406).
 */
function negotiate(request: IncomingMessage, protobuf: boolean): OpenAPIMediaType | undefined {
  const offered: OpenAPIMediaType[] = ['application/json', ...(protobuf ? OPENAPI_V2_PROTOBUF_MEDIA_TYPES : [])];
  const clauses = (request.headers.accept || '*/*')
    .split(',')
    .map((entry) => {
      const [type = '', ...parameters] = entry.split(';').map((part) => part.trim());
      const q = parameters.find((parameter) => parameter.startsWith('q='));
      return { type: type.toLowerCase(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((clause) => clause.type.includes('/') && !(clause.q <= 0))
    .sort((a, b) => b.q - a.q);
  for (const { type } of clauses) {
    const [main, sub] = type.split('/');
    const match = offered.find((candidate) => {
      const [candidateMain, candidateSub] = candidate.split('/');
      return (main === '*' || main === candidateMain) && (sub === '*' || sub === candidateSub);
    });
    if (match) return match;
  }
  return undefined;
}

function serveDocument(
  request: IncomingMessage,
  response: ServerResponse,
  body: string | Buffer,
  hash: string,
  immutable: boolean,
  contentType: OpenAPIMediaType = 'application/json',
): void {
  const etag = `"${hash}"`;
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    ETag: etag,
    'Cache-Control': immutable ? 'public, immutable, max-age=31536000' : 'no-cache, private',
    Vary: 'Accept',
  };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  sendBody(request, response, 200, body, headers);
}

/**
 * Serves `/openapi/v2` (Swagger 2.0 JSON, or gnostic's `openapi.v2.Document` protobuf for kubectl's
 * validation when Accept asks for it), `/openapi/v3` (the index with `?hash=` URLs) and
 * `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>` (OpenAPI 3.0), and the root entries upstream
 * lists: `/openapi/v3/api`, `/openapi/v3/apis`, `/openapi/v3/apis/<group>`, `/openapi/v3/version` (and any
 * `extraV3Documents`). A request carrying an outdated `hash` is redirected to the current one, as upstream does.
 */
export function createOpenAPIHandler(options: OpenAPIOptions): PathHandler {
  const cache = new Map<string, { key: string; body: string; hash: string; protobuf?: Buffer }>();
  type Entry = { body: string; hash: string; protobuf?: Buffer };
  const memo = (path: string, build: () => JSONSchema | undefined, key = contentKey(options)): Entry | undefined => {
    const cached = cache.get(path);
    if (cached && cached.key === key) return cached;
    const document = build();
    if (!document) return undefined;
    const body = JSON.stringify(document);
    const entry = { key, body, hash: hashOf(body) };
    cache.set(path, entry);
    return entry;
  };
  /** `key`: the content key, computed once for the many documents of an index. */
  const v3Document = (path: string, key = contentKey(options)): Entry | undefined => {
    const extra = options.extraV3Documents?.() ?? {};
    if (Object.hasOwn(extra, path)) return memo(path, () => extra[path], key);
    const match = /^(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!match) return memo(path, () => buildOpenAPIV3Root(options, path), key);
    const group = match[1] !== undefined ? '' : (match[2] ?? '');
    const version = match[1] ?? match[3] ?? '';
    return memo(path, () => buildOpenAPIV3(options, group, version), key);
  };

  return (request, response) => {
    const path = requestPath(request).replace(/\/+$/, '');
    if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
    if (rejectNonGet(request, response)) return true;
    const v2 = path === '/openapi/v2';
    const mediaType = negotiate(request, v2);
    if (!mediaType) {
      const accepted = ['application/json', ...(v2 ? OPENAPI_V2_PROTOBUF_MEDIA_TYPES : [])].join(', ');
      sendJson(request, response, 406, failureStatus(406, 'NotAcceptable', `only the following media types are accepted: ${accepted}`));
      return true;
    }
    if (v2) {
      const document = memo(path, () => buildOpenAPIV2(options));
      if (!document) return true;
      if (mediaType === 'application/json') serveDocument(request, response, document.body, document.hash, false);
      else {
        // Encoded once per document, with the JSON's ETag (kube-openapi's cached transform).
        document.protobuf ??= encodeOpenAPIV2Protobuf(JSON.parse(document.body) as JSONSchema);
        serveDocument(request, response, document.protobuf, document.hash, false, OPENAPI_V2_PROTOBUF_CONTENT_TYPE);
      }
      return true;
    }
    if (path === '/openapi/v3') {
      const index: Record<string, { serverRelativeURL: string }> = {};
      const content = contentKey(options);
      for (const key of [...openAPIV3Paths(options.resources()), ...Object.keys(options.extraV3Documents?.() ?? {})]) {
        const document = v3Document(key, content);
        if (document) index[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${document.hash}` };
      }
      for (const [key, serverRelativeURL] of Object.entries(options.extraV3Paths?.() ?? {})) index[key] ??= { serverRelativeURL };
      sendJson(request, response, 200, { paths: sortKeys(index) }, { 'Cache-Control': 'no-cache, private' });
      return true;
    }
    const key = path.slice('/openapi/v3/'.length);
    const document = v3Document(key);
    if (!document) {
      sendBody(request, response, 404, '404 page not found\n', { 'Content-Type': 'text/plain; charset=utf-8' });
      return true;
    }
    const requestedHash = requestQuery(request).get('hash');
    if (requestedHash !== null && requestedHash !== document.hash) {
      response.writeHead(301, { Location: `/openapi/v3/${key}?hash=${document.hash}`, 'Cache-Control': 'no-cache, private' });
      response.end();
      return true;
    }
    serveDocument(request, response, document.body, document.hash, requestedHash !== null);
    return true;
  };
}
