import type { FieldError, KubeObject } from '@kapi/apimachinery';

/** Upstream's `core.MaxSecretSize`: the decoded bytes of a Secret's data, all keys together. */
export const MAX_SECRET_BYTES = 1024 * 1024;

const required = (field: string): FieldError => ({ field, type: 'FieldValueRequired', detail: '' });

/** The JSON a docker config key must hold (upstream unmarshals it into a map). */
function dockerConfigError(field: string, encoded: string): FieldError | undefined {
  try {
    const value = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return undefined;
    return {
      field,
      type: 'FieldValueInvalid',
      value: '<secret contents redacted>',
      detail: 'json: cannot unmarshal into Go value of type map[string]interface {}',
    };
  } catch (error) {
    return {
      field,
      type: 'FieldValueInvalid',
      value: '<secret contents redacted>',
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * Upstream's `ValidateSecret` beyond the data keys: the 1 MiB limit on the decoded data, and the keys
 * (or annotation) each well-known type requires, e.g. `tls.crt` and `tls.key` for `kubernetes.io/tls`.
 */
export function validateSecretContents(object: KubeObject): FieldError[] {
  const data = (object['data'] ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  let totalSize = 0;
  for (const value of Object.values(data))
    if (typeof value === 'string') totalSize += Buffer.from(value, 'base64').length;
  if (totalSize > MAX_SECRET_BYTES)
    errors.push({
      field: 'data',
      type: 'FieldValueTooLong',
      detail: `may not be more than ${MAX_SECRET_BYTES} bytes`,
    });
  const has = (key: string) => Object.hasOwn(data, key);
  switch (object['type']) {
    case 'kubernetes.io/service-account-token':
      if (!object.metadata.annotations?.['kubernetes.io/service-account.name'])
        errors.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = object['type'] === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      const value = data[key];
      if (!has(key)) errors.push(required(`data[${key}]`));
      else if (typeof value === 'string') {
        const invalid = dockerConfigError(`data[${key}]`, value);
        if (invalid) errors.push(invalid);
      }
      break;
    }
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one must be there.
      if (!has('username') && !has('password'))
        errors.push(required('data[username]'), required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (typeof data['ssh-privatekey'] !== 'string' || data['ssh-privatekey'] === '')
        errors.push(required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errors.push(required('data[tls.crt]'));
      if (!has('tls.key')) errors.push(required('data[tls.key]'));
      break;
  }
  return errors;
}
