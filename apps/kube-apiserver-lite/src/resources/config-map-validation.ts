import type { FieldError, KubeObject } from '@kapi/apimachinery';

/** Largest ConfigMap payload: keys plus values of `data` and `binaryData` (upstream's MaxSecretSize). */
export const MAX_CONFIG_MAP_BYTES = 1024 * 1024;

/**
 * Upstream's ConfigMap checks across `data` and `binaryData`: a key in both is invalid, and keys plus
 * values (binary values decoded) may not exceed 1 MiB.
 */
export function validateConfigMapContents(object: KubeObject): FieldError[] {
  const data = (object['data'] ?? {}) as Record<string, unknown>;
  const binaryData = (object['binaryData'] ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  let totalSize = 0;
  for (const [key, value] of Object.entries(data)) {
    totalSize += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  for (const [key, value] of Object.entries(binaryData)) {
    totalSize += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.from(value, 'base64').length : 0);
    if (Object.hasOwn(data, key)) {
      errors.push({ field: 'binaryData', type: 'FieldValueInvalid', value: key, detail: 'duplicate of key present in data' });
    }
  }
  if (totalSize > MAX_CONFIG_MAP_BYTES) {
    // Upstream's field.NewPath("") (the whole object), which prints as `[]`.
    errors.push({ field: '[]', type: 'FieldValueTooLong', detail: `may not be more than ${MAX_CONFIG_MAP_BYTES} bytes` });
  }
  return errors;
}
