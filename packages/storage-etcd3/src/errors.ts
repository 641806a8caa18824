import { FutureRevisionError, RevisionCompactedError, StorageError } from '@kapi/storage';
import { isBrokenCircuitError } from 'cockatiel';
import { ClientClosedError, GRPCDeadlineExceededError, GRPCUnavailableError } from 'etcd3';

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'is a future revision';
const TOO_LARGE = 'request is too large';
/** etcd's gRPC server refuses messages over --max-request-bytes + 512 KiB before etcd sees them. */
const OVER_GRPC_LIMIT = 'received message larger than max';

/** True when an etcd error says the requested revision was compacted. */
export function isCompactedError(error: unknown): boolean {
  return error instanceof Error && error.message.includes(COMPACTED);
}

/** True when an etcd error says the requested revision is in the future. */
export function isFutureRevisionError(error: unknown): boolean {
  return error instanceof Error && error.message.includes(FUTURE);
}

/** Context for {@link translateError}: lazily fetched revisions for the error messages. */
export interface ErrorContext {
  key: string;
  requestedRevision: number;
  compactedRevision(): Promise<number>;
  currentRevision(): Promise<number>;
}

/**
 * Maps an etcd3 client error to the storage layer's errors: compaction and future-revision errors to
 * {@link RevisionCompactedError} / {@link FutureRevisionError}, connectivity and deadline failures to
 * `StorageError` Unreachable / Timeout, etcd's request size limit to RequestTooLarge. Anything else is
 * returned as is.
 */
export async function translateError(error: unknown, context: ErrorContext): Promise<unknown> {
  if (isCompactedError(error)) {
    const compacted = await context.compactedRevision().catch(() => 0);
    return new RevisionCompactedError(context.requestedRevision, compacted);
  }
  if (isFutureRevisionError(error)) {
    const current = await context.currentRevision().catch(() => 0);
    return new FutureRevisionError(context.requestedRevision, current);
  }
  if (
    error instanceof GRPCUnavailableError ||
    error instanceof ClientClosedError ||
    isBrokenCircuitError(error)
  ) {
    return StorageError.unreachable(context.key, `etcd is unreachable: ${error.message}`, error);
  }
  if (
    error instanceof Error &&
    (error.message.includes(TOO_LARGE) || error.message.includes(OVER_GRPC_LIMIT))
  ) {
    return new StorageError(
      'RequestTooLarge',
      context.key,
      0,
      `request is too large for etcd (${error.message})`,
    );
  }
  if (error instanceof GRPCDeadlineExceededError) {
    return StorageError.timeout(context.key, `etcd request timed out: ${error.message}`);
  }
  return error;
}
