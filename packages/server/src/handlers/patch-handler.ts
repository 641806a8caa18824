import type { IncomingMessage } from 'node:http';
import { StatusError, groupVersionString, isKubeObject, type KubeObject } from '@kapi/apimachinery';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch, type SchemaNode } from '../patch/strategic-merge-patch.js';
import { kindSchema } from '../registry/write-preparation.js';
import { handleApply, type ApplyTarget } from './apply-patch.js';
import { checkUnknownFields } from './decode-object.js';
import { objectMetaTypeError } from './object-meta-types.js';
import { mediaType, parsePatchBody, readBody } from './request-body.js';
import type { ResourceRoute } from './resource-handler.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** The patch types of built-in resources (upstream's installer) and of custom resources (no strategic merge). */
const builtInPatchTypes = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
const customResourcePatchTypes = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];

/** The 415 of a patch type the resource does not accept, naming those it does. */
function unsupported(accepted: readonly string[]): StatusError {
  return StatusError.unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** Whether the request is a server-side apply (`application/apply-patch+yaml`). */
export function isApplyPatch(request: IncomingMessage): boolean {
  return mediaType(request) === APPLY_PATCH;
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
  const apiVersion = groupVersionString({ group: route.definition.group, version: route.version });
  return kindSchema(route.scheme, route.definition, apiVersion);
}

/**
 * PATCH: applies a JSON, merge or strategic merge patch to the current object in the request version,
 * inside the store's update loop (so a patch without resourceVersion is re-applied on conflict), or a
 * server-side apply (which may create the object: `created`).
 */
export async function handlePatch(
  request: IncomingMessage,
  route: ResourceRoute,
  target: ApplyTarget,
): Promise<{ object: KubeObject; created: boolean }> {
  const type = mediaType(request);
  const accepted = route.definition.customResource ? customResourcePatchTypes : builtInPatchTypes;
  if (!accepted.includes(type)) throw unsupported(accepted);
  const body = await readBody(request);
  const apiVersion = groupVersionString({ group: route.definition.group, version: route.version });
  if (type === APPLY_PATCH) return handleApply(request, route, body, apiVersion, target);
  const patch = parsePatchBody(body);
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
    // What decoding the patched JSON into ObjectMeta would refuse, as decoding a request body does.
    const typeError = objectMetaTypeError(patched.metadata as Record<string, unknown>);
    if (typeError) throw patchInvalid(patched, typeError);
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
  return { object: result.object, created: false };
}
