import type { IncomingMessage } from 'node:http';
import { StatusError, isKubeObject, type KubeObject } from '@kapi/apimachinery';
import { attributesFromRequest, forbiddenError, requestContext, type Authorizer } from '@kapi/filters';
import { parse as parseYaml, parseDocument } from 'yaml';
import { TypedValueError } from '../apply/typed-value.js';
import { isRecord } from '../json-value.js';
import type { WriteContext } from '../registry/generic-store.js';
import { copyObject } from '../registry/object-meta.js';
import { objectMetaTypeError } from './object-meta-types.js';
import type { WriteQuery } from './query-options.js';
import { tooDeepError, yamlNestsDeeperThan } from './nesting-depth.js';
import { yamlToJsonValue } from './request-body.js';
import { addWarning } from './response-writer.js';
import type { ResourceRoute } from './resource-handler.js';

/** Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkText(apiVersion: unknown, kind: unknown): string {
  const text = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = text.indexOf('/');
  const groupVersion = slash < 0 ? `/${text}` : text;
  return `${groupVersion}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * Parses an apply body (JSON or YAML, with YAML 1.1 scalars as sigs.k8s.io/yaml). Duplicate keys: the
 * last wins, except that `fieldValidation=Strict` fails (400) and `Warn` warns, as upstream.
 */
export function parseApplyBody(request: IncomingMessage, text: string, fieldValidation: WriteQuery['fieldValidation']): unknown {
  let parsed: unknown;
  if (yamlNestsDeeperThan(text)) throw tooDeepError('error encoding patch: ');
  try {
    parsed = parseYaml(text, yamlToJsonValue, { version: '1.1', uniqueKeys: false }) as unknown;
  } catch (error) {
    throw StatusError.badRequest(`error encoding patch: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (fieldValidation !== 'Ignore') {
    const duplicates = parseDocument(text, { version: '1.1' })
      .errors.filter((error) => error.code === 'DUPLICATE_KEY')
      .map((error) => {
        const start = error.linePos?.[0] ?? { line: 0, col: 1 };
        const source = (text.split('\n')[start.line - 1] ?? '').slice(start.col - 1);
        const key = (source.split(':')[0] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2');
        return `line ${start.line}: key ${JSON.stringify(key)} already set in map`;
      });
    if (duplicates.length > 0) {
      if (fieldValidation === 'Strict') {
        throw StatusError.badRequest(
          `error strict decoding patch: yaml: unmarshal errors:\n${duplicates.map((line) => `  ${line}`).join('\n')}`,
        );
      }
      for (const line of duplicates) addWarning(request, line);
    }
  }
  return parsed;
}

/** The checks of an apply configuration before it is applied (versioncheck, structuredmerge). */
function checkConfig(config: unknown, route: ResourceRoute, apiVersion: string, name: string): KubeObject {
  const record = isRecord(config) ? config : {};
  if (record['apiVersion'] !== apiVersion || record['kind'] !== route.definition.kind)
    throw StatusError.badRequest(`invalid object type: ${gvkText(record['apiVersion'], record['kind'])}`);
  if (record['metadata'] === undefined || record['metadata'] === null) record['metadata'] = {};
  if (!isKubeObject(record)) throw StatusError.badRequest('metadata must be an object');
  if (record.metadata.managedFields !== undefined)
    throw StatusError.badRequest('metadata.managedFields must be nil');
  if ((record.metadata.name ?? '') !== name) {
    throw StatusError.badRequest(
      `the name of the object (${record.metadata.name ?? ''}) does not match the name on the URL (${name})`,
    );
  }
  const typeError = objectMetaTypeError(record.metadata as Record<string, unknown>);
  if (typeError) throw StatusError.badRequest(typeError);
  return record;
}

/** Where a patch goes and how it is written. */
export interface ApplyTarget {
  namespace: string;
  name: string;
  write: WriteQuery;
  /** With an authorizer, an apply that creates must also be allowed verb `create` (upstream's createValidation). */
  context: WriteContext;
}

/** Fails with 403 unless the requester may also create the object (apply creating it). */
async function authorizeCreate(request: IncomingMessage, authorizer: Authorizer | undefined): Promise<void> {
  const context = requestContext(request);
  if (!authorizer || !context.requestInfo) return;
  const attributes = { ...attributesFromRequest(context.requestInfo, context.user), verb: 'create' };
  const decision = await authorizer.authorize(attributes);
  if (decision.decision !== 'allow') throw forbiddenError(attributes, decision.reason ?? '');
}

/**
 * Server-side apply (`application/apply-patch+yaml`): applies the configuration as `fieldManager`
 * inside the store's update loop, creating the object when it does not exist (201).
 */
export async function handleApply(
  request: IncomingMessage,
  route: ResourceRoute,
  body: Buffer,
  apiVersion: string,
  target: ApplyTarget,
): Promise<{ object: KubeObject; created: boolean }> {
  const { namespace, name, write } = target;
  const config = checkConfig(parseApplyBody(request, body.toString('utf8'), write.fieldValidation), route, apiVersion, name);
  const bodyNamespace = config.metadata.namespace;
  if (route.definition.namespaced && bodyNamespace && bodyNamespace !== namespace) {
    throw StatusError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const { store } = route;
  const manager = write.fieldManager ?? '';
  const context: WriteContext = { ...target.context, manager, managedFieldsComputed: true };
  const transform = async (current: KubeObject, exists: boolean): Promise<KubeObject> => {
    if (!exists) await authorizeCreate(request, target.context.authorizer);
    if (!exists && config.metadata.uid) {
      throw StatusError.conflict(
        store.groupResource,
        name,
        `uid mismatch: the provided object specified uid ${config.metadata.uid}, and no existing object was found`,
      );
    }
    try {
      return store.fieldManager.apply(current, copyObject(config), {
        manager,
        subresource: target.context.subresource,
        force: write.force === true,
        created: !exists,
      });
    } catch (error) {
      if (!(error instanceof TypedValueError)) throw error;
      // Upstream's text. Upstream answers 500 (kubernetes/kubernetes#122480), which clients retry; the
      // configuration is the client's error, so 400, as kubernetes/kubernetes#139255 proposes.
      throw StatusError.badRequest(
        `failed to create typed patch object (${namespace}/${name}; ${gvkText(apiVersion, route.definition.kind)}): ${error.message}`,
      );
    }
  };
  return store.update(namespace, name, transform, route.version, context, { allowCreate: true });
}
