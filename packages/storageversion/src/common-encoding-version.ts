import type { Condition } from '@kapi/apimachinery';
import { computeCommonEncodingVersion, type StorageVersion } from './storage-version-api.js';

/** Condition type recording whether all servers encode alike. */
export const ALL_ENCODING_VERSIONS_EQUAL = 'AllEncodingVersionsEqual';

/**
 * Recomputes `status.commonEncodingVersion` and the `AllEncodingVersionsEqual` condition (upstream
 * SetCommonEncodingVersion): True/CommonEncodingVersionSet or False/CommonEncodingVersionUnset;
 * lastTransitionTime moves when the status flips or the common version changes between two values.
 */
export function setCommonEncodingVersion(object: StorageVersion, now: Date = new Date()): StorageVersion {
  const status = { ...(object.status ?? {}) };
  const previous = status.commonEncodingVersion;
  const common = computeCommonEncodingVersion(status.storageVersions ?? []);
  if (common === undefined) delete status.commonEncodingVersion;
  else status.commonEncodingVersion = common;
  const conditionStatus: Condition['status'] = common === undefined ? 'False' : 'True';
  const conditions = [...(status.conditions ?? [])];
  const index = conditions.findIndex((c) => c.type === ALL_ENCODING_VERSIONS_EQUAL);
  const existing = index >= 0 ? conditions[index] : undefined;
  const flipped = !existing || existing.status !== conditionStatus;
  const changedValue = previous !== undefined && common !== undefined && previous !== common;
  const condition: Condition = {
    type: ALL_ENCODING_VERSIONS_EQUAL,
    status: conditionStatus,
    observedGeneration: object.metadata.generation ?? 1,
    lastTransitionTime: flipped || changedValue || !existing ? now.toISOString().replace(/\.\d{3}Z$/, 'Z') : existing.lastTransitionTime,
    reason: common === undefined ? 'CommonEncodingVersionUnset' : 'CommonEncodingVersionSet',
    message: common === undefined ? 'Common encoding version unset' : 'Common encoding version set',
  };
  if (index >= 0) conditions[index] = condition;
  else conditions.push(condition);
  status.conditions = conditions;
  return { ...object, status };
}
