import { KapiError } from './kapi-error.js';
import type { Status, StatusCause, StatusDetails, StatusReason } from './meta-types.js';
import { groupResourceString, type GroupResource } from './group-version.js';

const statusMarker = Symbol.for('kapi.status-error');

/** A field-level validation failure, as produced by validators (field path + cause type + detail). */
export interface FieldError {
  /** `metadata.name`, `spec.containers[0].image`. */
  field: string;
  /** `FieldValueInvalid`, `FieldValueRequired`, `FieldValueNotSupported`, `FieldValueDuplicate`, `FieldValueForbidden`, `FieldValueTooLong`, `FieldValueTypeInvalid`. */
  type: string;
  /** The offending value, rendered in the message (omitted for Required/Forbidden). */
  value?: unknown;
  /** Human detail. */
  detail: string;
}

const fieldErrorText: Record<string, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** Renders one field error the way Kubernetes does: `metadata.name: Invalid value: "x": detail`. */
export function fieldErrorMessage(error: FieldError): string {
  const what = fieldErrorText[error.type] ?? error.type;
  const showValue = error.type !== 'FieldValueRequired' && error.type !== 'FieldValueForbidden' && error.value !== undefined;
  const value = showValue ? `: ${JSON.stringify(error.value)}` : '';
  return `${error.field}: ${what}${value}${error.detail ? `: ${error.detail}` : ''}`;
}

/** An error that carries a complete Kubernetes `Status`. Every API failure surfaces as one. */
export class StatusError extends KapiError {
  private readonly [statusMarker] = true;
  readonly status: Status;

  constructor(status: Status, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? 'unknown error', options);
    this.status = status;
  }

  /** True when `error` is a StatusError from any copy of this package. */
  static override isInstance(error: unknown): error is StatusError {
    return typeof error === 'object' && error !== null && statusMarker in error;
  }

  /** HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** Status reason. */
  get reason(): StatusReason {
    return this.status.reason ?? '';
  }

  override get isRetryable(): boolean {
    return [429, 503, 504].includes(this.status.code) || this.status.reason === 'Conflict';
  }

  /** Builds a failure Status. */
  static of(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
    if (details) status.details = details;
    return new StatusError(status);
  }

  static badRequest(message: string): StatusError {
    return StatusError.of(400, 'BadRequest', message);
  }

  static unauthorized(message = 'Unauthorized'): StatusError {
    return StatusError.of(401, 'Unauthorized', message);
  }

  /** `<resource.group> "<name>" is forbidden: <message>` (no name: `<resource.group> is forbidden: ...`). */
  static forbidden(gr: GroupResource, name: string, message: string): StatusError {
    const subject = name ? `${groupResourceString(gr)} "${name}"` : groupResourceString(gr);
    return StatusError.of(403, 'Forbidden', `${subject} is forbidden: ${message}`, {
      ...(name ? { name } : {}),
      group: gr.group,
      kind: gr.resource,
    });
  }

  /** `<resource.group> "<name>" not found`. */
  static notFound(gr: GroupResource, name: string): StatusError {
    return StatusError.of(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  }

  /** `<resource.group> "<name>" already exists`. */
  static alreadyExists(gr: GroupResource, name: string): StatusError {
    return StatusError.of(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  }

  /** `Operation cannot be fulfilled on <resource.group> "<name>": <message>`. */
  static conflict(gr: GroupResource, name: string, message: string): StatusError {
    return StatusError.of(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${message}`,
      { name, group: gr.group, kind: gr.resource },
    );
  }

  /** The standard optimistic-concurrency conflict text. */
  static conflictModified(gr: GroupResource, name: string): StatusError {
    return StatusError.conflict(
      gr,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }

  static gone(message: string): StatusError {
    return StatusError.of(410, 'Gone', message);
  }

  /** 410 Expired, e.g. `too old resource version: 5 (10)`. */
  static expired(message: string): StatusError {
    return StatusError.of(410, 'Expired', message);
  }

  /** 422 `<Kind.group> "<name>" is invalid: [<causes>]` with one cause per field error. */
  static invalid(kind: { group: string; kind: string }, name: string, errors: FieldError[]): StatusError {
    const qualified = kind.group === '' ? kind.kind : `${kind.kind}.${kind.group}`;
    const messages = errors.map(fieldErrorMessage);
    const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
    const causes: StatusCause[] = errors.map((error) => ({
      reason: error.type,
      message: fieldErrorMessage(error).slice(error.field.length + 2),
      field: error.field,
    }));
    return StatusError.of(422, 'Invalid', `${qualified} "${name}" is invalid: ${summary}`, {
      name,
      group: kind.group,
      kind: kind.kind,
      causes,
    });
  }

  static requestEntityTooLarge(message: string): StatusError {
    return StatusError.of(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
  }

  /** 415, e.g. `the body of the request was in an unknown format - accepted media types include: ...`. */
  static unsupportedMediaType(message: string): StatusError {
    return StatusError.of(415, 'UnsupportedMediaType', message);
  }

  static notAcceptable(message: string): StatusError {
    return StatusError.of(406, 'NotAcceptable', message);
  }

  /** 429 with `details.retryAfterSeconds`, so the response carries `Retry-After`. */
  static tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
    return StatusError.of(429, 'TooManyRequests', message, { retryAfterSeconds });
  }

  /** `Internal error occurred: <message>`. */
  static internal(message: string, cause?: unknown): StatusError {
    const error = StatusError.of(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    });
    if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause });
    return error;
  }

  static serviceUnavailable(message: string, retryAfterSeconds?: number): StatusError {
    return StatusError.of(
      503,
      'ServiceUnavailable',
      message,
      retryAfterSeconds === undefined ? undefined : { retryAfterSeconds },
    );
  }

  /** 504 Timeout, e.g. `Timeout: Too large resource version: 20, current: 10` with its cause. */
  static timeout(message: string, retryAfterSeconds?: number, causes?: StatusCause[]): StatusError {
    const details: StatusDetails = {};
    if (retryAfterSeconds !== undefined) details.retryAfterSeconds = retryAfterSeconds;
    if (causes) details.causes = causes;
    return StatusError.of(504, 'Timeout', message, Object.keys(details).length ? details : undefined);
  }

  /** The 504 a read gets when it asks for a revision newer than the server has. */
  static tooLargeResourceVersion(requested: number, current: number): StatusError {
    return StatusError.timeout(`Timeout: Too large resource version: ${requested}, current: ${current}`, 1, [
      { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
    ]);
  }

  /** `<METHOD> is not supported on resources of kind "<resource.group>"`. */
  static methodNotAllowed(method: string, gr: GroupResource): StatusError {
    return StatusError.of(
      405,
      'MethodNotAllowed',
      `${method} is not supported on resources of kind "${groupResourceString(gr)}"`,
      { group: gr.group, kind: gr.resource },
    );
  }
}

/** Converters registered by other packages (e.g. storage) that turn their errors into Status. */
const converters: Array<(error: unknown) => StatusError | undefined> = [];

/** Registers a converter used by {@link toStatusError} for errors of another package. */
export function registerStatusConverter(converter: (error: unknown) => StatusError | undefined): void {
  converters.push(converter);
}

/** The one normaliser: turns anything thrown into a StatusError (unknown errors become 500). */
export function toStatusError(error: unknown): StatusError {
  if (StatusError.isInstance(error)) return error;
  for (const convert of converters) {
    const converted = convert(error);
    if (converted) return converted;
  }
  const message = error instanceof Error ? error.message : String(error);
  return StatusError.internal(message, error);
}

/** Returns the Status for anything thrown (see {@link toStatusError}). */
export function toStatus(error: unknown): Status {
  return toStatusError(error).status;
}
