import type { KVWriteCondition, KVWriteResult } from '@kapi/storage';
import type { WriteRequest } from './write-request.js';

/** What the writer thread is started with. */
export interface WriterThreadData {
  path: string;
  busyTimeoutMs: number;
  /** The writer connection's `wal_autocheckpoint` (pages); SQLite's default (1000) when absent. */
  autocheckpointPages?: number;
}

/**
 * A batch of writes packed for the trip to the writer thread: the keys, one buffer with every value and
 * one array of numbers, both transferred rather than copied (the structured clone of one object per
 * write cost the event loop more than the copy of the values into one buffer).
 */
export interface PackedWrites {
  keys: string[];
  /** Per write, {@link fieldsPerWrite} numbers: kind, expected modRevision, TTL seconds (0: none), value offset, value length. */
  numbers: Float64Array;
  values: ArrayBuffer;
  /** Write conditions, by the write's index (rare). */
  conditions?: Record<number, KVWriteCondition>;
}

const fieldsPerWrite = 5;
const kinds: WriteRequest['kind'][] = ['create', 'update', 'delete'];

/** Packs requests; the returned buffers are the ones to transfer. */
export function packWrites(requests: readonly WriteRequest[]): { packed: PackedWrites; transfer: ArrayBuffer[] } {
  let size = 0;
  for (const request of requests) size += request.value.byteLength;
  const values = new Uint8Array(size);
  const numbers = new Float64Array(requests.length * fieldsPerWrite);
  const keys: string[] = [];
  let conditions: Record<number, KVWriteCondition> | undefined;
  let offset = 0;
  requests.forEach((request, index) => {
    keys.push(request.key);
    values.set(request.value, offset);
    const at = index * fieldsPerWrite;
    numbers[at] = kinds.indexOf(request.kind);
    numbers[at + 1] = request.expectedModRevision;
    numbers[at + 2] = request.ttlSeconds ?? 0;
    numbers[at + 3] = offset;
    numbers[at + 4] = request.value.byteLength;
    offset += request.value.byteLength;
    if (request.condition) (conditions ??= {})[index] = request.condition;
  });
  const packed: PackedWrites = { keys, numbers, values: values.buffer, ...(conditions ? { conditions } : {}) };
  return { packed, transfer: [values.buffer, numbers.buffer as ArrayBuffer] };
}

/** The requests of a packed batch (values are views of the one transferred buffer). */
export function unpackWrites(packed: PackedWrites): WriteRequest[] {
  return packed.keys.map((key, index) => {
    const at = index * fieldsPerWrite;
    const field = (position: number) => packed.numbers[at + position] as number;
    const request: WriteRequest = {
      kind: kinds[field(0)] as WriteRequest['kind'],
      key,
      value: Buffer.from(packed.values, field(3), field(4)),
      expectedModRevision: field(1),
    };
    if (field(2) !== 0) request.ttlSeconds = field(2);
    const condition = packed.conditions?.[index];
    if (condition) request.condition = condition;
    return request;
  });
}

/** A message to the writer thread: a batch to commit, a compaction, or the end. */
export type WriterRequest =
  | { type: 'write'; id: number; writes: PackedWrites; now: number }
  | { type: 'compact'; id: number; revision: number }
  | { type: 'close' };

/**
 * The writer thread's answer to request `id` (id 0: the database is open). `transaction` numbers the
 * thread's transactions: batches committed together share it.
 */
export type WriterReply =
  | { id: number; results: KVWriteResult[]; transaction?: number; error?: undefined }
  | { id: number; error: { message: string; code?: string } };
