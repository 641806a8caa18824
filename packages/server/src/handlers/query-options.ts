import {
  StatusError,
  parseFieldSelector,
  parseLabelSelector,
  type FieldError,
  type Selector,
} from '@kapi/apimachinery';
import type { ResourceVersionMatch } from '@kapi/storage';

/** How unknown fields in a body are treated (`?fieldValidation=`). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Query options of create/update/patch/delete. */
export interface WriteQuery {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager?: string;
  /** `force` of an apply patch (only allowed there). */
  force?: boolean;
}

/** Longest field manager name (bytes). */
export const FIELD_MANAGER_MAX_BYTES = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintable(character: string): boolean {
  return character === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(character);
}

/** ValidateFieldManager: at most 128 bytes, printable characters only (positions in bytes). */
function fieldManagerErrors(fieldManager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES) {
    errors.push({ field: 'fieldManager', type: 'FieldValueTooLong', detail: 'may not be more than 128 bytes' });
  }
  let position = 0;
  for (const character of fieldManager) {
    if (!isPrintable(character)) {
      const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errors.push({
        field: 'fieldManager',
        type: 'FieldValueInvalid',
        value: fieldManager,
        detail: `invalid character U+${code} (at position ${position})`,
      });
    }
    position += Buffer.byteLength(character);
  }
  return errors;
}

/**
 * The manager of a write (managerOrUserAgent): `fieldManager`, else the User-Agent up to the first `/`
 * with non-printable characters dropped and cut at 128 bytes; `unknown` when that is empty.
 */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  // Clients send the same few User-Agents over and over: each is cut once (a native byteLength per character).
  const agent = userAgent ?? '';
  let manager = managerByUserAgent.get(agent);
  if (manager === undefined) {
    manager = managerOfUserAgent(agent);
    if (managerByUserAgent.size >= MANAGER_CACHE_SIZE) managerByUserAgent.clear();
    managerByUserAgent.set(agent, manager);
  }
  return manager;
}

/** How many User-Agents {@link managerOrUserAgent} remembers (all are forgotten when it is full). */
const MANAGER_CACHE_SIZE = 256;
const managerByUserAgent = new Map<string, string>();

function managerOfUserAgent(userAgent: string): string {
  let result = '';
  for (const character of userAgent.split('/')[0] ?? '') {
    if (!isPrintable(character)) continue;
    if (Buffer.byteLength(result) + Buffer.byteLength(character) > FIELD_MANAGER_MAX_BYTES) break;
    result += character;
  }
  return result || 'unknown';
}

/** Query options of get/list/watch/deletecollection. */
export interface ReadQuery {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  labelSelector?: Selector;
  fieldSelector?: Selector;
  limit?: number;
  continue?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

function optionsInvalid(kind: string, errors: FieldError[]): StatusError {
  return StatusError.invalid({ group: 'meta.k8s.io', kind }, '', errors);
}

/** The values Go's strconv.ParseBool accepts; `''` (a bare `?watch`) counts as true, as upstream's parameter codec does. */
const TRUE_VALUES = new Set(['', '1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_VALUES = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A boolean query parameter as strconv.ParseBool reads it; 400 for anything else. */
export function parseBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  throw StatusError.badRequest(
    `failed to parse ${name}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
  );
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64 query parameter as strconv.ParseInt reads it: 400 for bad syntax and for values out of range. */
export function parseInteger(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  const fail = (why: string) =>
    StatusError.badRequest(`failed to parse ${name}: strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`);
  if (!/^[+-]?\d+$/.test(value)) throw fail('invalid syntax');
  const parsed = BigInt(value);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw fail('value out of range');
  return Number(parsed);
}

/**
 * Parses and validates `dryRun`, `fieldValidation`, `fieldManager` and (PatchOptions) `force`
 * (CreateOptions/UpdateOptions/PatchOptions/DeleteOptions); `apply` marks an apply patch, which
 * requires `fieldManager` and is the only write that may set `force`.
 */
export function parseWriteQuery(query: URLSearchParams, optionsKind: string, apply = false): WriteQuery {
  const errors: FieldError[] = [];
  const fieldManager = query.get('fieldManager') ?? undefined;
  const force = optionsKind === 'PatchOptions' ? parseBoolean(query, 'force') : undefined;
  if (optionsKind === 'PatchOptions') {
    if (!apply && force !== undefined)
      errors.push({ field: 'force', type: 'FieldValueForbidden', detail: 'may not be specified for non-apply patch' });
    if (apply && !fieldManager)
      errors.push({ field: 'fieldManager', type: 'FieldValueRequired', detail: 'is required for apply patch' });
  }
  if (fieldManager !== undefined && optionsKind !== 'DeleteOptions') errors.push(...fieldManagerErrors(fieldManager));
  const dryRun = query.getAll('dryRun');
  const unsupported = dryRun.filter((value) => value !== 'All');
  if (unsupported.length > 0) {
    errors.push({
      field: 'dryRun',
      type: 'FieldValueNotSupported',
      value: dryRun,
      detail: 'supported values: "All"',
    });
  }
  const validation = query.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(validation)) {
    errors.push({
      field: 'fieldValidation',
      type: 'FieldValueNotSupported',
      value: validation,
      detail: 'supported values: "", "Ignore", "Strict", "Warn"',
    });
  }
  if (errors.length > 0) throw optionsInvalid(optionsKind, errors);
  const result: WriteQuery = {
    dryRun: dryRun.length > 0,
    fieldValidation: validation === '' ? 'Warn' : (validation as FieldValidation),
  };
  if (fieldManager !== undefined) result.fieldManager = fieldManager;
  if (force !== undefined) result.force = force;
  return result;
}

/** Parses and validates list/watch options with upstream's messages (internalversion validation). */
export function parseReadQuery(query: URLSearchParams, forceWatch = false): ReadQuery {
  const watch = forceWatch || parseBoolean(query, 'watch') === true;
  const result: ReadQuery = {
    watch,
    allowWatchBookmarks: parseBoolean(query, 'allowWatchBookmarks') === true,
  };
  const resourceVersion = query.get('resourceVersion');
  if (resourceVersion !== null) result.resourceVersion = resourceVersion;
  const match = query.get('resourceVersionMatch') ?? '';
  const labelSelector = query.get('labelSelector');
  if (labelSelector) result.labelSelector = parseLabelSelector(labelSelector);
  const fieldSelector = query.get('fieldSelector');
  if (fieldSelector) result.fieldSelector = parseFieldSelector(fieldSelector);
  const limit = parseInteger(query, 'limit');
  if (limit !== undefined && limit > 0) result.limit = Math.min(limit, Number.MAX_SAFE_INTEGER);
  const continueToken = query.get('continue');
  if (continueToken) {
    if (resourceVersion)
      throw StatusError.badRequest('specifying resource version is not allowed when using continue');
    result.continue = continueToken;
  }
  const timeoutSeconds = parseInteger(query, 'timeoutSeconds');
  if (timeoutSeconds !== undefined) result.timeoutSeconds = timeoutSeconds;
  const sendInitialEvents = parseBoolean(query, 'sendInitialEvents');
  if (sendInitialEvents !== undefined) result.sendInitialEvents = sendInitialEvents;

  const errors: FieldError[] = [];
  const forbid = (field: string, detail: string) =>
    errors.push({ field, type: 'FieldValueForbidden', detail });
  if (watch) {
    if (sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan')
        forbid(
          'resourceVersionMatch',
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        );
      if (!result.allowWatchBookmarks)
        forbid('allowWatchBookmarks', 'allowWatchBookmarks required when sendInitialEvents is provided');
    } else if (match !== '') {
      forbid(
        'resourceVersionMatch',
        'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
    }
  } else {
    if (match !== '') {
      if (!resourceVersion)
        forbid(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
      if (match === 'Exact' && resourceVersion === '0') {
        forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      }
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        errors.push({
          field: 'resourceVersionMatch',
          type: 'FieldValueNotSupported',
          value: match,
          detail: 'supported values: "Exact", "NotOlderThan", ""',
        });
      }
    }
    if (sendInitialEvents !== undefined)
      forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (errors.length > 0) throw optionsInvalid('ListOptions', errors);
  if (match === 'Exact' || match === 'NotOlderThan') result.resourceVersionMatch = match;
  return result;
}
