import type { IncomingMessage } from 'node:http';
import { StatusError, type FieldError } from '@kapi/apimachinery';
import type { Preconditions } from '@kapi/storage';
import type { DeletePropagationOptions, DeletionPropagation } from '../registry/deletion-finalizers.js';
import { parseBoolean, parseInteger, parseWriteQuery } from './query-options.js';
import { decodeObjectBody, objectMediaType, readBody, type ProtobufBodyDecoder } from './request-body.js';

/** What a DELETE's options decide here. */
export interface DeleteBody {
  preconditions: Preconditions;
  dryRun: boolean;
  /** `propagationPolicy` and `orphanDependents`, for the garbage collector's finalizers. */
  propagation: DeletePropagationOptions;
}

/** The JSON type name Go's decoder reports for a value it cannot unmarshal. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The 400 of a DeleteOptions field (or the whole body) of the wrong JSON type, in the words of Go's decoder. */
function wrongType(value: unknown, field: string | undefined, goType: string): StatusError {
  const into = field === undefined ? 'Go value' : `Go struct field DeleteOptions.${field}`;
  return StatusError.badRequest(`json: cannot unmarshal ${jsonType(value)} into ${into} of type ${goType}`);
}

/** Field types of the DeleteOptions body (absent and null fields are unset). */
const fieldTypes: Record<string, { check: (value: unknown) => boolean; goType: string }> = {
  gracePeriodSeconds: { check: (value) => Number.isInteger(value), goType: 'int64' },
  orphanDependents: { check: (value) => typeof value === 'boolean', goType: 'bool' },
  propagationPolicy: { check: (value) => typeof value === 'string', goType: 'v1.DeletionPropagation' },
  preconditions: {
    check: (value) => typeof value === 'object' && !Array.isArray(value),
    goType: 'v1.Preconditions',
  },
  dryRun: {
    check: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
    goType: '[]string',
  },
};

/**
 * A DELETE's options, from the query and the body (a DeleteOptions), checked as upstream: a body that is
 * not a DeleteOptions object or has a field of the wrong type is 400; `orphanDependents` beside
 * `propagationPolicy`, or an unknown policy, is 422 (ValidateDeleteOptions). Checked before anything is deleted.
 */
export async function readDeleteOptions(
  request: IncomingMessage,
  query: URLSearchParams,
  protobuf: ProtobufBodyDecoder | undefined,
): Promise<DeleteBody> {
  const write = parseWriteQuery(query, 'DeleteOptions');
  const body = await readBody(request);
  parseInteger(query, 'gracePeriodSeconds');
  const result: DeleteBody = { preconditions: {}, dryRun: write.dryRun, propagation: {} };
  let propagationPolicy = query.get('propagationPolicy');
  let orphanDependents = parseBoolean(query, 'orphanDependents');
  if (body.length > 0) {
    const options = decodeObjectBody(objectMediaType(request), body, protobuf);
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw wrongType(options, undefined, 'v1.DeleteOptions');
    const record = options as Record<string, unknown>;
    for (const [field, { check, goType }] of Object.entries(fieldTypes)) {
      const value = record[field];
      if (value !== undefined && value !== null && !check(value)) throw wrongType(value, field, goType);
    }
    const preconditions = record['preconditions'];
    if (typeof preconditions === 'object' && preconditions !== null) {
      const { uid, resourceVersion } = preconditions as Record<string, unknown>;
      if (typeof uid === 'string') result.preconditions.uid = uid;
      if (typeof resourceVersion === 'string') result.preconditions.resourceVersion = resourceVersion;
    }
    if (Array.isArray(record['dryRun']) && record['dryRun'].length > 0) result.dryRun = true;
    if (typeof record['propagationPolicy'] === 'string') propagationPolicy = record['propagationPolicy'];
    if (typeof record['orphanDependents'] === 'boolean') orphanDependents = record['orphanDependents'];
  }
  const errors: FieldError[] = [];
  if (orphanDependents !== undefined && propagationPolicy !== null) {
    errors.push({
      field: 'propagationPolicy',
      type: 'FieldValueInvalid',
      value: propagationPolicy,
      detail: 'orphanDependents and deletionPropagation cannot be both set',
    });
  }
  if (propagationPolicy !== null && !['Orphan', 'Background', 'Foreground'].includes(propagationPolicy)) {
    errors.push({
      field: 'propagationPolicy',
      type: 'FieldValueNotSupported',
      value: propagationPolicy,
      detail: 'supported values: "Foreground", "Background", "Orphan", "nil"',
    });
  }
  if (errors.length > 0)
    throw StatusError.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errors);
  if (propagationPolicy !== null) result.propagation.propagationPolicy = propagationPolicy as DeletionPropagation;
  if (orphanDependents !== undefined) result.propagation.orphanDependents = orphanDependents;
  return result;
}
