import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { requestContext, requestTarget } from '@kapi/filters';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge-patch.js';
import type { ScaleSubresource } from '../resource-definition.js';
import type { WriteContext } from '../registry/generic-store.js';
import { isApplyPatch } from './patch-handler.js';
import { managerOrUserAgent, parseReadQuery, parseWriteQuery } from './query-options.js';
import { decodeObjectBody, mediaType, parsePatchBody, readBody } from './request-body.js';
import type { HandlerEnvironment, ResourceRoute } from './resource-handler.js';
import type { ResourcePath } from './resource-path.js';
import { writeObject } from './response-writer.js';
import { applyScale } from './scale-apply.js';

/** autoscaling/v1 Scale. */
interface Scale extends KubeObject {
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** Upstream marks a custom resource without spec replicas with the smallest int32. */
const UNSET_REPLICAS = -2147483648;

const segments = (path: string) => path.replace(/^\./, '').split('.');

function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const key of segments(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function setValueAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = segments(path);
  const last = keys.pop() ?? '';
  let current = object;
  for (const key of keys) {
    const next = current[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[last] = value;
}

function integerAt(object: KubeObject, path: string): number | undefined {
  const value = valueAt(object, path);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    const type = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'map' : typeof value;
    throw StatusError.badRequest(`${path.replace(/^\./, '')} accessor error: ${JSON.stringify(value)} is of the type ${type}, expected int64`);
  }
  return value;
}

/** The object's Scale (upstream's scaleFromCustomResource); `found`: whether spec replicas are set. */
function scaleOf(object: KubeObject, scale: ScaleSubresource): { scale: Scale; found: boolean } {
  const specReplicas = integerAt(object, scale.specReplicasPath);
  const selector = scale.labelSelectorPath ? valueAt(object, scale.labelSelectorPath) : undefined;
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    found: specReplicas !== undefined,
    scale: {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        ...(name !== undefined ? { name } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        ...(uid !== undefined ? { uid } : {}),
        ...(resourceVersion !== undefined ? { resourceVersion } : {}),
        ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
      },
      spec: { replicas: specReplicas ?? 0 },
      status: {
        replicas: integerAt(object, scale.statusReplicasPath) ?? 0,
        ...(typeof selector === 'string' && selector !== '' ? { selector } : {}),
      },
    },
  };
}

/** Turns the request (PUT of a Scale, or a patch of the current Scale) into the new Scale. */
async function requestedScale(request: IncomingMessage, verb: 'update' | 'patch'): Promise<(current: Scale) => unknown> {
  const type = mediaType(request);
  const body = await readBody(request);
  if (verb === 'update') {
    const decoded = decodeObjectBody(type, body, undefined);
    return () => decoded;
  }
  const patch = parsePatchBody(body);
  if (type === 'application/json-patch+json') return (current) => applyJsonPatch(current, patch);
  if (type === 'application/merge-patch+json') return (current) => applyMergePatch(current, patch);
  if (type === 'application/strategic-merge-patch+json') return (current) => applyStrategicMergePatch(current, patch, undefined);
  throw StatusError.unsupportedMediaType(
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
  );
}

function asScale(value: unknown): Scale {
  const scale = value as Partial<Scale> | null;
  if (typeof scale !== 'object' || scale === null || (scale.kind !== undefined && scale.kind !== 'Scale')) {
    throw StatusError.badRequest(`wrong object passed to Scale update: ${JSON.stringify(value)}`);
  }
  return scale as Scale;
}

/**
 * Serves `<resource>/scale` (an autoscaling/v1 Scale mapped onto the object by JSON paths, as a custom
 * resource's scale subresource): GET reads it, PUT and PATCH write `spec.replicas` back through the
 * resource's store (so its validation and a Scale's `resourceVersion` precondition apply).
 */
export async function handleScaleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  path: ResourcePath,
  environment: HandlerEnvironment,
  scale: ScaleSubresource,
): Promise<void> {
  const { definition, store, version } = route;
  const query = requestTarget(request).query;
  const method = request.method ?? 'GET';
  if (method === 'GET') {
    const read = parseReadQuery(query);
    const object = await store.get(path.namespace, path.name, version, read.resourceVersion || undefined);
    return writeObject(request, response, 200, scaleOf(object, scale).scale);
  }
  if (method !== 'PUT' && method !== 'PATCH') {
    throw StatusError.methodNotAllowed(method, { group: definition.group, resource: definition.resource });
  }
  const apply = method === 'PATCH' && isApplyPatch(request);
  const write = parseWriteQuery(query, method === 'PUT' ? 'UpdateOptions' : 'PatchOptions', apply);
  const context: WriteContext = { dryRun: write.dryRun, subresource: '' };
  const user = requestContext(request).user;
  if (user) context.user = user;
  if (environment.authorizer) context.authorizer = environment.authorizer;
  if (apply) {
    const applied = await applyScale(request, route, path, scale, await readBody(request), write, context);
    return writeObject(request, response, 200, scaleOf(applied, scale).scale);
  }
  const toScale = await requestedScale(request, method === 'PUT' ? 'update' : 'patch');
  context.manager = managerOrUserAgent(write.fieldManager, request.headers['user-agent']);
  const result = await store.update(
    path.namespace,
    path.name,
    (current) => {
      const old = scaleOf(current, scale);
      if (!old.found) old.scale.spec.replicas = UNSET_REPLICAS;
      const next = asScale(toScale(old.scale));
      if (next.spec?.replicas === UNSET_REPLICAS || typeof next.spec?.replicas !== 'number') {
        throw StatusError.badRequest(`the spec replicas field ${JSON.stringify(scale.specReplicasPath)} cannot be empty`);
      }
      setValueAt(current as unknown as Record<string, unknown>, scale.specReplicasPath, next.spec.replicas);
      // A Scale's resourceVersion is a precondition on the object.
      const resourceVersion = next.metadata?.resourceVersion;
      if (resourceVersion) current.metadata.resourceVersion = resourceVersion;
      return current;
    },
    version,
    context,
  );
  return writeObject(request, response, 200, scaleOf(result.object, scale).scale);
}
