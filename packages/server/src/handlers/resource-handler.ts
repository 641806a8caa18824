import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { requestContext, requestTarget, type Authorizer } from '@kapi/filters';
import type { ServerMetrics } from '../metrics/index.js';
import type { Verb } from '../resource-definition.js';
import type { GenericStore, WriteContext } from '../registry/generic-store.js';
import { storedResponseJson } from './created-encoding.js';
import { decodeRequestObject, type Endpoint } from './decode-object.js';
import { duplicateJsonKeys } from './duplicate-json-keys.js';
import { handlePatch, isApplyPatch } from './patch-handler.js';
import {
  managerOrUserAgent,
  parseBoolean,
  parseReadQuery,
  parseWriteQuery,
  type ReadQuery,
  type WriteQuery,
} from './query-options.js';
import { decodeObjectBody, objectMediaType, readBody, type ProtobufBodyDecoder } from './request-body.js';
import { readDeleteOptions } from './delete-options.js';
import type { ResourcePath } from './resource-path.js';
import { writeList } from './list-writer.js';
import { addWarning, applyWarnings, writeObject } from './response-writer.js';
import { negotiateResponseForm, parseIncludeObject, partialObjectMetadata, partialObjectMetadataMismatch } from './table.js';
import { writeTable } from './table-writer.js';
import { serveWatch, type WatchForm, type WatchRegistry } from './watch-handler.js';

/** One served resource at one version, as the router finds it. */
export interface ResourceRoute extends Endpoint {
  store: GenericStore;
}

/** Server-wide state the handlers need. */
export interface HandlerEnvironment {
  watches: WatchRegistry;
  /** Default watch timeout in seconds when the client sends none (`1800*(1+rand)` upstream). */
  watchTimeoutSeconds?: () => number;
  /** Registered-watchers gauge. */
  metrics?: ServerMetrics;
  /** Clock for Table ages. */
  now?: () => Date;
  /** Decoder of protobuf request bodies (kubectl sends them for built-in kinds). */
  protobuf?: ProtobufBodyDecoder;
  /** The server's one authorizer (apply that creates, strategy hooks through `RequestScope.authorizer`). */
  authorizer?: Authorizer;
}

const allVerbs: Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
/** The verbs a subresource (status, scale) serves. */
const subresourceVerbs = new Set(['get', 'update', 'patch']);

/** The RequestInfo verb of a resource request. */
export function resourceVerb(method: string, path: ResourcePath, query: URLSearchParams): string {
  let watch = path.legacyWatch;
  // As upstream's RequestInfo, `?watch=` makes a watch of a collection only: a GET of a named object stays
  // a get (authorized as one), and its handler ignores the parameter.
  if (path.name === '') {
    try {
      watch ||= parseBoolean(query, 'watch') === true;
    } catch {
      // Options that do not parse leave the verb a list, whose handler answers 400.
    }
  }
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return path.name === '' ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return path.name === '' ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}

function writeContext(
  request: IncomingMessage,
  environment: HandlerEnvironment,
  dryRun: boolean,
  subresource: string,
  write?: WriteQuery,
): WriteContext {
  const context: WriteContext = {
    dryRun,
    subresource,
    warn: (message) => addWarning(request, message),
    annotate: (key, value) => void (requestContext(request).auditAnnotations[key] = value),
  };
  const user = requestContext(request).user;
  if (user) context.user = user;
  if (environment.authorizer) context.authorizer = environment.authorizer;
  // Creates, updates and patches are recorded in managedFields under this manager.
  if (write) context.manager = managerOrUserAgent(write.fieldManager, request.headers['user-agent']);
  return context;
}

/** Refuses field selectors on fields the resource does not index (runtime.DefaultMetaV1FieldSelectorConversion). */
export function checkFieldSelector(query: ReadQuery, definition: ResourceRoute['definition']): void {
  const selector = query.fieldSelector as
    (ReadQuery['fieldSelector'] & { requirements?: ReadonlyArray<{ field: string }> }) | undefined;
  if (!selector?.requirements) return;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(definition.selectableFields ?? [])]);
  for (const requirement of selector.requirements) {
    if (!allowed.has(requirement.field))
      throw StatusError.badRequest(`field label not supported: ${requirement.field}`);
  }
}

function listParameters(query: ReadQuery) {
  return {
    ...(query.resourceVersion !== undefined ? { resourceVersion: query.resourceVersion } : {}),
    ...(query.resourceVersionMatch ? { resourceVersionMatch: query.resourceVersionMatch } : {}),
    ...(query.labelSelector ? { labelSelector: query.labelSelector } : {}),
    ...(query.fieldSelector ? { fieldSelector: query.fieldSelector } : {}),
    ...(query.limit ? { limit: query.limit } : {}),
    ...(query.continue ? { continue: query.continue } : {}),
  };
}

/**
 * Writes one object or list as the client negotiated (object, Table or PartialObjectMetadata). `json`:
 * see {@link writeObject} (true for an object read from the watch cache, its compact JSON when a write
 * already has it).
 */
function respond(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  code: number,
  body: KubeObject,
  isList: boolean,
  now?: () => Date,
  json: boolean | Buffer = false,
): void | Promise<void> {
  const form = negotiateResponseForm(request);
  // A list's items are spliced in from their (cached) encodings rather than encoded as one string.
  if (form.as === 'object' && isList && !form.yaml) return writeList(request, response, code, body);
  if (form.as === 'object') return writeObject(request, response, code, body, form.yaml ? 'yaml' : 'json', json);
  const items = isList ? ((body['items'] as KubeObject[]) ?? []) : [body];
  if (form.as === 'Table') {
    const includeObject = parseIncludeObject(requestTarget(request).query.get('includeObject'));
    // A single object's Table carries its resourceVersion, as upstream's table convertors set it.
    const resourceVersion = body.metadata?.resourceVersion;
    const listMetadata = isList ? (body.metadata as Record<string, unknown>) : resourceVersion ? { resourceVersion } : {};
    return writeTable(request, response, code, route.definition, items, {
      version: form.version,
      includeObject,
      listMetadata,
      ...(now ? { now: now() } : {}),
    });
  }
  if (form.list !== isList) throw partialObjectMetadataMismatch(route.definition, isList);
  if (!isList) return writeObject(request, response, code, partialObjectMetadata(body, form.version));
  writeObject(request, response, code, {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${form.version}`,
    metadata: body.metadata,
    items: items.map((item) => partialObjectMetadata(item, form.version)),
  });
}

async function readObject(
  request: IncomingMessage,
  route: ResourceRoute,
  fieldValidation: 'Ignore' | 'Warn' | 'Strict',
  protobuf: ProtobufBodyDecoder | undefined,
): Promise<KubeObject> {
  const type = objectMediaType(request);
  const body = await readBody(request);
  if (type !== 'application/json' || fieldValidation === 'Ignore')
    return decodeRequestObject(request, decodeObjectBody(type, body, protobuf), route, fieldValidation);
  // One UTF-8 decode of the body serves the parse and the duplicate-field scan.
  const text = body.toString('utf8');
  const decoded = decodeObjectBody(type, body, protobuf, text);
  const duplicates = duplicateJsonKeys(text, decoded).map((key) => `duplicate field ${JSON.stringify(key)}`);
  if (duplicates.length > 0 && fieldValidation === 'Strict') {
    const { kind } = route.definition;
    throw StatusError.badRequest(
      `${kind} in version "${route.version}" cannot be handled as a ${kind}: strict decoding error: ${duplicates.join(', ')}`,
    );
  }
  for (const duplicate of duplicates) addWarning(request, duplicate);
  return decodeRequestObject(request, decoded, route, fieldValidation);
}

/**
 * Serves one resource request: dispatches on the verb to the generic store and writes the response.
 * Rejects with StatusErrors for the caller to write.
 */
export function handleResourceRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  path: ResourcePath,
  environment: HandlerEnvironment,
): Promise<void> {
  // A watch is its stream's own promise: an async function around it would hold one more promise and
  // its resolving functions for the watch's whole life.
  try {
    const query = requestTarget(request).query;
    const verb = resourceVerb(request.method ?? 'GET', path, query);
    const deprecation = route.definition.deprecationWarning;
    if (deprecation !== undefined) addWarning(request, deprecation);
    if (verb === 'get') return serveGet(request, response, route, path, environment, query);
    if (verb !== 'watch') return serveVerb(request, response, route, path, environment, query, verb);
    checkVerb(request, route, path, verb);
    // A watch writes its head itself: the warnings go on the response now.
    if (deprecation !== undefined) applyWarnings(request, response);
    const read = parseReadQuery(query, true);
    checkFieldSelector(read, route.definition);
    const negotiated = negotiateResponseForm(request);
    const form: WatchForm | undefined =
      negotiated.as === 'Table'
        ? { as: 'Table', version: negotiated.version, includeObject: parseIncludeObject(query.get('includeObject')), headersSent: false }
        : negotiated.as === 'PartialObjectMetadata'
          ? { as: 'PartialObjectMetadata', version: negotiated.version }
          : undefined;
    return serveWatch(request, response, route, {
      namespace: path.namespace,
      name: path.name,
      query: read,
      environment,
      ...(form ? { form } : {}),
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Refuses a verb the resource does not serve at this path. */
function checkVerb(request: IncomingMessage, route: ResourceRoute, path: ResourcePath, verb: string): void {
  const { definition } = route;
  const verbs = definition.verbs ?? allVerbs;
  if (!(verbs as string[]).includes(verb) || (path.subresource !== '' && !subresourceVerbs.has(verb))) {
    throw StatusError.methodNotAllowed(request.method ?? 'GET', definition);
  }
  if (verb !== 'update' && definition.subresources?.replaceOnly?.includes(path.subresource)) {
    throw StatusError.methodNotAllowed(request.method ?? 'GET', definition);
  }
  // Across all namespaces a namespaced resource serves only list and watch (no routes for the rest).
  if (definition.namespaced && path.namespace === '' && verb !== 'list' && verb !== 'watch') {
    throw StatusError.methodNotAllowed(request.method ?? 'GET', definition);
  }
  // Upstream's routes: POST on the collection only, PUT and PATCH on a named object only.
  const named = path.name !== '';
  if ((verb === 'create' && named) || ((verb === 'update' || verb === 'patch') && !named)) {
    throw StatusError.methodNotAllowed(request.method ?? 'GET', definition);
  }
}

/**
 * Serves a GET, the most frequent request: not an async function (nor a case of {@link serveVerb}, whose
 * suspended frame holds the registers of every verb), so a GET costs one promise reaction here.
 */
function serveGet(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  path: ResourcePath,
  environment: HandlerEnvironment,
  query: URLSearchParams,
): Promise<void> {
  checkVerb(request, route, path, 'get');
  // Most GETs carry no query at all: nothing to parse.
  const resourceVersion = query.size === 0 ? undefined : parseReadQuery(query).resourceVersion;
  return route.store
    .get(path.namespace, path.name, route.version, resourceVersion || undefined)
    .then((object) => respond(request, response, route, 200, object, false, environment.now, true));
}

/** Serves a request of any verb but get (see {@link serveGet}) and watch. */
async function serveVerb(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  path: ResourcePath,
  environment: HandlerEnvironment,
  query: URLSearchParams,
  verb: string,
): Promise<void> {
  checkVerb(request, route, path, verb);
  const { definition, store, version } = route;
  const namespace = path.namespace;
  switch (verb) {
    case 'list': {
      const read = parseReadQuery(query);
      checkFieldSelector(read, definition);
      const list = await store.list(namespace, version, listParameters(read));
      return respond(request, response, route, 200, list, true, environment.now);
    }
    case 'create': {
      const write = parseWriteQuery(query, 'CreateOptions');
      const object = await readObject(request, route, write.fieldValidation, environment.protobuf);
      const bodyNamespace = object.metadata.namespace;
      if (definition.namespaced && bodyNamespace && bodyNamespace !== namespace) {
        throw StatusError.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      if (path.name !== '' && object.metadata.name !== path.name) {
        throw StatusError.badRequest(
          `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${path.name})`,
        );
      }
      const context = writeContext(request, environment, write.dryRun, '', write);
      // Decoded for this request alone: the store prepares it in place, and decodes the body again
      // (warnings were recorded the first time) if it needs a fresh one.
      context.decodeAgain = async () =>
        decodeRequestObject(request, decodeObjectBody(objectMediaType(request), await readBody(request), environment.protobuf), route, 'Ignore');
      // The created object is only written out below: the watch cache may keep that very object.
      context.readOnlyResult = true;
      const created = await store.create(namespace, object, version, context);
      // The response reuses the bytes just stored when the store kept them (one encoding per create).
      return respond(request, response, route, 201, created, false, undefined, storedResponseJson(created));
    }
    case 'update': {
      const write = parseWriteQuery(query, 'UpdateOptions');
      const object = await readObject(request, route, write.fieldValidation, environment.protobuf);
      if (object.metadata.name !== path.name) {
        throw StatusError.badRequest(
          `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${path.name})`,
        );
      }
      const bodyNamespace = object.metadata.namespace;
      if (definition.namespaced && bodyNamespace && bodyNamespace !== namespace) {
        throw StatusError.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      const result = await store.update(
        namespace,
        path.name,
        object,
        version,
        writeContext(request, environment, write.dryRun, path.subresource, write),
      );
      // An update that wrote answers with the bytes the store wrote, as a create does.
      return respond(request, response, route, result.created ? 201 : 200, result.object, false, undefined, storedResponseJson(result.object));
    }
    case 'patch': {
      const write = parseWriteQuery(query, 'PatchOptions', isApplyPatch(request));
      const patched = await handlePatch(request, route, {
        namespace,
        name: path.name,
        write,
        context: writeContext(request, environment, write.dryRun, path.subresource, write),
      });
      // A patch that wrote answers with the bytes the store wrote, as an update does.
      return respond(request, response, route, patched.created ? 201 : 200, patched.object, false, undefined, storedResponseJson(patched.object));
    }
    case 'delete': {
      const options = await readDeleteOptions(request, query, environment.protobuf);
      const result = await store.delete(
        namespace,
        path.name,
        version,
        options.preconditions,
        writeContext(request, environment, options.dryRun, ''),
        options.propagation,
      );
      // As upstream: 202 only for an object kept after `orphanDependents: false`; 200 otherwise.
      const code = !result.deleted && options.propagation.orphanDependents === false ? 202 : 200;
      if (definition.returnDeletedObject === false && result.deleted) {
        return writeObject(request, response, code, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: {
            name: path.name,
            group: definition.group,
            kind: definition.resource,
            uid: result.object.metadata.uid,
          },
        });
      }
      return respond(request, response, route, code, result.object, false);
    }
    case 'deletecollection': {
      const options = await readDeleteOptions(request, query, environment.protobuf);
      const read = parseReadQuery(query);
      checkFieldSelector(read, definition);
      const list = await store.deleteCollection(
        namespace,
        version,
        listParameters(read),
        writeContext(request, environment, options.dryRun, ''),
        options.propagation,
      );
      return respond(request, response, route, 200, list, true);
    }
    default:
      throw StatusError.methodNotAllowed(request.method ?? '', definition);
  }
}
