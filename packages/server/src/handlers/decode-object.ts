import type { IncomingMessage } from 'node:http';
import { StatusError, groupVersionString, isKubeObject, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.js';
import type { SchemeLike } from '../scheme-like.js';
import { goUnmarshalError } from './go-type-errors.js';
import { objectMetaTypeError } from './object-meta-types.js';
import type { FieldValidation } from './query-options.js';
import { addWarning } from './response-writer.js';

/** The request's endpoint: the resource and version a body must match. */
export interface Endpoint {
  definition: ResourceDefinition;
  version: string;
  scheme: SchemeLike;
}

/**
 * Checks a decoded create/update body against the endpoint: an object whose apiVersion/kind (defaulted
 * from the URL when missing) match the URL (400 otherwise). Unknown fields: Strict fails (400), Warn adds warnings; both Warn and Ignore prune.
 */
export function decodeRequestObject(
  request: IncomingMessage,
  body: unknown,
  endpoint: Endpoint,
  fieldValidation: FieldValidation,
): KubeObject {
  const { definition, version } = endpoint;
  const apiVersion = groupVersionString({ group: definition.group, version });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw StatusError.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
  }
  const record = body as Record<string, unknown>;
  // As upstream's decoder, a missing apiVersion or kind defaults to the endpoint's.
  if (record['apiVersion'] === undefined || record['apiVersion'] === '') record['apiVersion'] = apiVersion;
  if (record['kind'] === undefined || record['kind'] === '') record['kind'] = definition.kind;
  if (record['apiVersion'] !== apiVersion) {
    throw StatusError.badRequest(
      `the API version in the data (${String(record['apiVersion'])}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (record['kind'] !== definition.kind) {
    throw StatusError.badRequest(
      `${String(record['kind'])} in version "${version}" cannot be handled as a ${definition.kind}: the kind in the data (${String(record['kind'])}) does not match the expected kind (${definition.kind})`,
    );
  }
  if (record['metadata'] === undefined || record['metadata'] === null) record['metadata'] = {};
  if (!isKubeObject(record)) throw StatusError.badRequest('metadata must be an object');
  const typeError = objectMetaTypeError(record.metadata as Record<string, unknown>) ?? builtInTypeError(record, endpoint);
  if (typeError) {
    throw StatusError.badRequest(
      `${definition.kind} in version "${version}" cannot be handled as a ${definition.kind}: ${typeError}`,
    );
  }
  return checkUnknownFields(request, record, endpoint, fieldValidation, (message) =>
    StatusError.badRequest(
      `${definition.kind} in version "${version}" cannot be handled as a ${definition.kind}: ${message}`,
    ),
  );
}

/**
 * A built-in kind is decoded into Go structs upstream, so a value of the wrong JSON type is a 400 decode
 * error there, not a 422 (custom resources are validated against their schema: 422).
 */
function builtInTypeError(object: Record<string, unknown>, endpoint: Endpoint): string | undefined {
  const { definition, version, scheme } = endpoint;
  if (definition.customResource) return undefined;
  const schema = scheme.kindFor?.({ group: definition.group, version, kind: definition.kind })?.schema;
  if (typeof schema !== 'object' || schema === null) return undefined;
  return goUnmarshalError(object, schema as Record<string, unknown>, definition.kind, version);
}

/** Applies the fieldValidation policy to `object`; `strictError` builds the Strict failure from its message. */
export function checkUnknownFields(
  request: IncomingMessage,
  object: KubeObject,
  endpoint: Endpoint,
  fieldValidation: FieldValidation,
  strictError: (message: string) => StatusError,
): KubeObject {
  const unknown = endpoint.scheme.findUnknownFields(object);
  if (unknown.length > 0) {
    const texts = unknown.map((path) => `unknown field "${path}"`);
    if (fieldValidation === 'Strict') throw strictError(`strict decoding error: ${texts.join(', ')}`);
    if (fieldValidation === 'Warn') for (const text of texts) addWarning(request, text);
    endpoint.scheme.prune(object);
  }
  return object;
}
