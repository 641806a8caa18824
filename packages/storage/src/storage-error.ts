import { KapiError, StatusError, registerStatusConverter, type GroupResource } from '@kapi/apimachinery';

const storageMarker = Symbol.for('kapi.storage-error');

/** The codes a storage operation fails with (k8s.io/apiserver pkg/storage/errors.go). */
export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'ResourceVersionConflict'
  | 'InvalidObject'
  | 'Unreachable'
  | 'Timeout'
  | 'CorruptObject'
  | 'RequestTooLarge';

const numericCode: Record<StorageErrorCode, number> = {
  KeyNotFound: 1,
  KeyExists: 2,
  ResourceVersionConflict: 3,
  InvalidObject: 4,
  Unreachable: 5,
  Timeout: 6,
  CorruptObject: 7,
  RequestTooLarge: 8,
};

/** A typed storage failure, carrying the key and resourceVersion it concerns. */
export class StorageError extends KapiError {
  private readonly [storageMarker] = true;

  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    readonly resourceVersion: number,
    readonly additionalMessage = '',
    options?: { cause?: unknown },
  ) {
    super(
      `StorageError: ${describe(code)}, Code: ${numericCode[code]}, Key: ${key}, ResourceVersion: ${resourceVersion}, AdditionalErrorMsg: ${additionalMessage}`,
      options,
    );
  }

  static override isInstance(error: unknown): error is StorageError {
    return typeof error === 'object' && error !== null && storageMarker in error;
  }

  override get isRetryable(): boolean {
    return this.code === 'Unreachable' || this.code === 'Timeout' || this.code === 'ResourceVersionConflict';
  }

  static keyNotFound(key: string, resourceVersion = 0): StorageError {
    return new StorageError('KeyNotFound', key, resourceVersion);
  }
  static keyExists(key: string, resourceVersion = 0): StorageError {
    return new StorageError('KeyExists', key, resourceVersion);
  }
  static conflict(key: string, resourceVersion: number, message = ''): StorageError {
    return new StorageError('ResourceVersionConflict', key, resourceVersion, message);
  }
  /** A failed precondition: `Precondition failed: UID in precondition: X, UID in object meta: Y`. */
  static invalidObject(key: string, resourceVersion: number, message: string): StorageError {
    return new StorageError('InvalidObject', key, resourceVersion, message);
  }
  static unreachable(key: string, message: string, cause?: unknown): StorageError {
    return new StorageError('Unreachable', key, 0, message, { cause });
  }
  static timeout(key: string, message: string): StorageError {
    return new StorageError('Timeout', key, 0, message);
  }
  static corruptObject(key: string, message: string, cause?: unknown): StorageError {
    return new StorageError('CorruptObject', key, 0, message, { cause });
  }
  static requestTooLarge(key: string, size: number, limit: number): StorageError {
    return new StorageError('RequestTooLarge', key, 0, `request is too large: ${size} bytes, limit is ${limit}`);
  }
}

function describe(code: StorageErrorCode): string {
  switch (code) {
    case 'KeyNotFound':
      return 'key not found';
    case 'KeyExists':
      return 'key exists';
    case 'ResourceVersionConflict':
      return 'resource version conflicts';
    case 'InvalidObject':
      return 'invalid object';
    case 'Unreachable':
      return 'server unreachable';
    case 'Timeout':
      return 'request timeout';
    case 'CorruptObject':
      return 'corrupt object';
    case 'RequestTooLarge':
      return 'request too large';
  }
}

/** The last path segment of a storage key, used as the object name in messages. */
function nameOfKey(key: string): string {
  const parts = key.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? key;
}

/**
 * The one table from storage failures to API Status (k8s.io/apiserver pkg/storage/errors/storage.go).
 * `resource` and `name` give the messages their Kubernetes wording; without them the key is used.
 */
export function storageErrorToStatus(error: StorageError, resource?: GroupResource, name?: string): StatusError {
  const gr = resource ?? { group: '', resource: 'objects' };
  const objectName = name ?? nameOfKey(error.key);
  switch (error.code) {
    case 'KeyNotFound':
      return StatusError.notFound(gr, objectName);
    case 'KeyExists':
      return StatusError.alreadyExists(gr, objectName);
    case 'ResourceVersionConflict':
      return StatusError.conflictModified(gr, objectName);
    case 'InvalidObject':
      return StatusError.conflict(gr, objectName, error.message);
    case 'Unreachable':
      return StatusError.serviceUnavailable(error.message);
    case 'Timeout':
      return StatusError.timeout(error.message);
    case 'CorruptObject':
      return StatusError.internal(error.message, error);
    case 'RequestTooLarge':
      return StatusError.requestEntityTooLarge(error.additionalMessage);
  }
}

registerStatusConverter((error) => (StorageError.isInstance(error) ? storageErrorToStatus(error) : undefined));
