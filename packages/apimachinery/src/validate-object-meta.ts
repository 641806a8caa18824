import type { ObjectMeta, OwnerReference } from './meta-types.js';
import type { FieldError } from './status-error.js';
import {
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  type NameValidator,
} from './name-validation.js';

/** Maximum total size of the annotations of one object (keys + values), 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** Options of {@link validateObjectMeta}. */
export interface ValidateObjectMetaOptions {
  /** Whether the kind is namespaced (namespace required) or cluster-scoped (namespace forbidden). */
  namespaced: boolean;
  /** Validates `name` and `generateName`; default: DNS-1123 subdomain. */
  nameValidator?: NameValidator;
  /** Field path prefix; default `metadata`. */
  path?: string;
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  return { field, type: 'FieldValueInvalid', value, detail };
}

/** Label keys must be qualified names, values valid label values (ValidateLabels). */
export function validateLabels(
  labels: Readonly<Record<string, unknown>> | undefined,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const message of isQualifiedName(key)) errors.push(invalid(path, key, message));
    if (typeof value !== 'string') {
      errors.push(invalid(path, value, 'must be a string'));
      continue;
    }
    for (const message of isValidLabelValue(value)) errors.push(invalid(path, value, message));
  }
  return errors;
}

/** Annotation keys must be qualified names (case-insensitive); total size at most 256 KiB (ValidateAnnotations). */
export function validateAnnotations(
  annotations: Readonly<Record<string, unknown>> | undefined,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const message of isQualifiedName(key.toLowerCase())) errors.push(invalid(path, key, message));
    size += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    errors.push({
      field: path,
      type: 'FieldValueTooLong',
      detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`,
    });
  }
  return errors;
}

/**
 * Validates ObjectMeta as upstream's ValidateObjectMeta: name (or generateName), namespace according to
 * scope, generation, labels, annotations, finalizers and owner references. Paths are `metadata.name`,
 * `metadata.labels`...
 */
export function validateObjectMeta(meta: ObjectMeta, options: ValidateObjectMetaOptions): FieldError[] {
  const base = options.path ?? 'metadata';
  const validateName = options.nameValidator ?? nameIsDNSSubdomain;
  const errors: FieldError[] = [];
  // Fields of the wrong JSON type are reported as such (a caller's object need not have come from JSON).
  for (const field of ['name', 'generateName', 'namespace'] as const) {
    if (meta[field] !== undefined && typeof meta[field] !== 'string') {
      errors.push(invalid(`${base}.${field}`, meta[field], 'must be a string'));
      return errors;
    }
  }
  if (meta.generateName) {
    for (const message of validateName(meta.generateName, true)) {
      errors.push(invalid(`${base}.generateName`, meta.generateName, message));
    }
  }
  if (!meta.name) {
    if (!meta.generateName) {
      errors.push({
        field: `${base}.name`,
        type: 'FieldValueRequired',
        detail: 'name or generateName is required',
      });
    }
  } else {
    for (const message of validateName(meta.name, false))
      errors.push(invalid(`${base}.name`, meta.name, message));
  }
  if (options.namespaced) {
    if (!meta.namespace) {
      errors.push({ field: `${base}.namespace`, type: 'FieldValueRequired', detail: '' });
    } else {
      for (const message of nameIsDNSLabel(meta.namespace, false)) {
        errors.push(invalid(`${base}.namespace`, meta.namespace, message));
      }
    }
  } else if (meta.namespace) {
    errors.push({
      field: `${base}.namespace`,
      type: 'FieldValueForbidden',
      detail: 'not allowed on this type',
    });
  }
  if (meta.generation !== undefined && meta.generation < 0) {
    errors.push(invalid(`${base}.generation`, meta.generation, 'must be greater than or equal to 0'));
  }
  errors.push(...validateLabels(meta.labels, `${base}.labels`));
  errors.push(...validateAnnotations(meta.annotations, `${base}.annotations`));
  for (const field of ['finalizers', 'ownerReferences'] as const) {
    if (meta[field] !== undefined && meta[field] !== null && !Array.isArray(meta[field])) {
      errors.push(invalid(`${base}.${field}`, meta[field], 'must be a list'));
      return errors;
    }
  }
  (meta.finalizers ?? []).forEach((finalizer, index) => {
    if (typeof finalizer !== 'string') {
      errors.push(invalid(`${base}.finalizers[${index}]`, finalizer, 'must be a string'));
      return;
    }
    for (const message of isQualifiedName(finalizer)) {
      errors.push(invalid(`${base}.finalizers[${index}]`, finalizer, message));
    }
  });
  errors.push(...validateOwnerReferences(meta, `${base}.ownerReferences`));
  return errors;
}

function validateOwnerReferences(meta: ObjectMeta, path: string): FieldError[] {
  const errors: FieldError[] = [];
  let controllers = 0;
  // A null item is an empty reference (as Go decodes it): every required field is reported missing.
  (meta.ownerReferences ?? []).forEach((item: OwnerReference | null, index) => {
    const reference: Partial<OwnerReference> = item ?? {};
    const at = `${path}[${index}]`;
    if (!reference.apiVersion)
      errors.push(invalid(`${at}.apiVersion`, reference.apiVersion ?? '', 'version must not be empty'));
    if (!reference.kind) errors.push(invalid(`${at}.kind`, reference.kind ?? '', 'kind must not be empty'));
    if (!reference.name) errors.push(invalid(`${at}.name`, reference.name ?? '', 'name must not be empty'));
    if (!reference.uid) errors.push(invalid(`${at}.uid`, reference.uid ?? '', 'uid must not be empty'));
    if (reference.controller) controllers++;
  });
  if (controllers > 1) {
    errors.push(invalid(path, meta.ownerReferences, 'Only one reference can have Controller set to true'));
  }
  return errors;
}
