import type { IncomingMessage } from 'node:http';
import { StatusError, groupVersionString, type KubeObject } from '@kapi/apimachinery';
import { isRecord } from '../json-value.js';
import type { WriteContext } from '../registry/generic-store.js';
import type { ScaleSubresource } from '../resource-definition.js';
import { gvkText, parseApplyBody } from './apply-patch.js';
import type { WriteQuery } from './query-options.js';
import type { ResourceRoute } from './resource-handler.js';
import type { ResourcePath } from './resource-path.js';

/** The parent configuration a Scale apply configuration stands for: only `specReplicasPath`, when given. */
function parentConfig(config: unknown, route: ResourceRoute, path: ResourcePath, scale: ScaleSubresource): KubeObject {
  const record = isRecord(config) ? config : {};
  if (record['apiVersion'] !== 'autoscaling/v1' || record['kind'] !== 'Scale')
    throw StatusError.badRequest(`invalid object type: ${gvkText(record['apiVersion'], record['kind'])}`);
  const metadata = record['metadata'] ?? {};
  if (!isRecord(metadata)) throw StatusError.badRequest('metadata must be an object');
  if (metadata['managedFields'] !== undefined) throw StatusError.badRequest('metadata.managedFields must be nil');
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
  if (name !== path.name) {
    throw StatusError.badRequest(`the name of the object (${name}) does not match the name on the URL (${path.name})`);
  }
  const parent: KubeObject = {
    apiVersion: groupVersionString({ group: route.definition.group, version: route.version }),
    kind: route.definition.kind,
    metadata: { name, ...(path.namespace ? { namespace: path.namespace } : {}) },
  };
  const spec = record['spec'];
  const replicas = isRecord(spec) ? spec['replicas'] : undefined;
  if (replicas === undefined || replicas === null) return parent;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas))
    throw StatusError.badRequest(`spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be an integer`);
  const keys = scale.specReplicasPath.replace(/^\./, '').split('.');
  const last = keys.pop() ?? '';
  let target: Record<string, unknown> = parent;
  for (const key of keys) {
    const child: Record<string, unknown> = {};
    target[key] = child;
    target = child;
  }
  target[last] = replicas;
  return parent;
}

/**
 * Server-side apply of an autoscaling/v1 Scale (`PATCH .../scale` with `application/apply-patch+yaml`), as
 * upstream does for custom resources: the Scale's `spec.replicas` is applied to the object at
 * `specReplicasPath` by `fieldManager` with subresource `scale`, so managedFields stay on the object and
 * conflicts with other owners of the replicas field give the usual 409 unless `force`.
 */
export async function applyScale(
  request: IncomingMessage,
  route: ResourceRoute,
  path: ResourcePath,
  scale: ScaleSubresource,
  body: Buffer,
  write: WriteQuery,
  context: WriteContext,
): Promise<KubeObject> {
  const config = parentConfig(parseApplyBody(request, body.toString('utf8'), write.fieldValidation), route, path, scale);
  const { store } = route;
  const manager = write.fieldManager ?? '';
  const result = await store.update(
    path.namespace,
    path.name,
    (current) =>
      store.fieldManager.apply(current, config, { manager, subresource: 'scale', force: write.force === true, created: false }),
    route.version,
    { ...context, manager, managedFieldsComputed: true },
  );
  return result.object;
}
