import type { IncomingMessage } from 'node:http';
import { StatusError, groupVersionString, isKubeObject, type KubeObject } from '@kapi/apimachinery';
import type { WriteContext } from '../registry/generic-store.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch, type SchemaNode } from '../patch/strategic-merge-patch.js';
import { checkUnknownFields } from './decode-object.js';
import type { WriteQuery } from './query-options.js';
import { mediaType, readBody } from './request-body.js';
import type { ResourceRoute } from './resource-handler.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

const acceptedTypes = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH];

function unsupported(extra = ''): StatusError {
  return StatusError.unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${acceptedTypes.join(', ')}${extra}`,
  );
}

/** The 422 upstream gives when the patched document cannot be decoded (cause field `patch`). */
function patchInvalid(patched: unknown, message: string): StatusError {
  return StatusError.of(
    422,
    'Invalid',
    ` "" is invalid: patch: Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${message}`,
    {
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${message}`,
          field: 'patch',
        },
      ],
    },
  );
}

function schemaFor(route: ResourceRoute): SchemaNode | undefined {
  const gvk = { group: route.definition.group, version: route.version, kind: route.definition.kind };
  const schema = route.scheme.kindFor?.(gvk)?.schema ?? route.scheme.openAPISchema?.(gvk);
  return typeof schema === 'object' && schema !== null ? (schema as SchemaNode) : undefined;
}

/**
 * PATCH: applies a JSON, merge or strategic merge patch to the current object in the request version,
 * inside the store's update loop (so a patch without resourceVersion is re-applied on conflict).
 * Server-side apply is refused with 415.
 */
export async function handlePatch(
  request: IncomingMessage,
  route: ResourceRoute,
  target: { namespace: string; name: string; write: WriteQuery; context: WriteContext },
): Promise<KubeObject> {
  const type = mediaType(request);
  if (type === APPLY_PATCH || type === 'application/apply-patch+cbor') {
    throw unsupported(` (server-side apply, ${type}, is not supported yet)`);
  }
  if (!acceptedTypes.includes(type)) throw unsupported();
  const body = await readBody(request);
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw StatusError.badRequest('invalid JSON patch');
  }
  const apiVersion = groupVersionString({ group: route.definition.group, version: route.version });
  const schema = type === STRATEGIC_MERGE_PATCH ? schemaFor(route) : undefined;
  const transform = (current: KubeObject): KubeObject => {
    let patched: unknown;
    if (type === JSON_PATCH) patched = applyJsonPatch(current, patch);
    else if (type === MERGE_PATCH) patched = applyMergePatch(current, patch);
    else patched = applyStrategicMergePatch(current, patch, schema);
    if (!isKubeObject(patched))
      throw patchInvalid(patched, 'cannot decode the patched object: not a Kubernetes object');
    if (patched.apiVersion !== apiVersion || patched.kind !== route.definition.kind) {
      throw patchInvalid(
        patched,
        `the patched object must keep apiVersion ${apiVersion} and kind ${route.definition.kind}`,
      );
    }
    return checkUnknownFields(request, patched, route, target.write.fieldValidation, (message) =>
      patchInvalid(patched, message),
    );
  };
  const result = await route.store.update(
    target.namespace,
    target.name,
    transform,
    route.version,
    target.context,
  );
  return result.object;
}
