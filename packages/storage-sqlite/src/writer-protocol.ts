import type { KVWriteResult } from '@kapi/storage';
import type { WriteRequest } from './write-request.js';

/** What the writer thread is started with. */
export interface WriterThreadData {
  path: string;
  busyTimeoutMs: number;
}

/** A message to the writer thread: a batch to commit, a compaction, or the end. */
export type WriterRequest =
  | { type: 'write'; id: number; requests: WriteRequest[]; now: number }
  | { type: 'compact'; id: number; revision: number }
  | { type: 'close' };

/**
 * The writer thread's answer to request `id` (id 0: the database is open). `transaction` numbers the
 * thread's transactions: batches committed together share it.
 */
export type WriterReply =
  | { id: number; results: KVWriteResult[]; transaction?: number; error?: undefined }
  | { id: number; error: { message: string; code?: string } };
