import type { Worker } from 'node:worker_threads';
import type { KVWriteResult } from '@kapi/storage';
import type { WriteRequest } from './write-request.js';
import { CheckpointThread } from './checkpoint-thread.js';
import { startWorker } from './worker-entry.js';
import { packWrites, type WriterReply, type WriterRequest, type WriterThreadData } from './writer-protocol.js';

/** A batch's results and the number of the transaction that committed it (shared by merged batches). */
export interface CommittedBatch {
  results: KVWriteResult[];
  transaction: number;
}

interface Pending {
  resolve: (batch: CommittedBatch) => void;
  reject: (error: Error) => void;
}

/**
 * The main thread's handle on the writer thread ({@link ./sqlite-writer-worker.ts}): requests go out as
 * messages and come back in order. The thread keeps the process alive only while it has work.
 */
export class WriterThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;
  /** Settles after the last request sent (replies come back in order). */
  private last: Promise<unknown> = Promise.resolve();

  private checkpointer: CheckpointThread | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: WriterReply) => this.settle(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => this.fail(new Error('the sqlite writer thread exited')));
    worker.unref();
  }

  /**
   * Starts the thread and waits until it has opened the database (rejects with SQLite's error
   * otherwise). With `checkpointIntervalMs`, a {@link CheckpointThread} copies the WAL back beside it,
   * and the writer's own checkpoint waits for a WAL of `backstopPages` (default 10000 pages).
   */
  static async start(data: WriterThreadData & { checkpointIntervalMs?: number; backstopPages?: number }): Promise<WriterThread> {
    const { checkpointIntervalMs, backstopPages = 10_000, ...writer } = data;
    const background = checkpointIntervalMs !== undefined && checkpointIntervalMs > 0;
    const thread = new WriterThread(startWorker('sqlite-writer-worker', background ? { ...writer, autocheckpointPages: backstopPages } : writer));
    await thread.call(0, undefined);
    if (background) thread.checkpointer = CheckpointThread.start({ path: data.path, busyTimeoutMs: data.busyTimeoutMs, intervalMs: checkpointIntervalMs });
    return thread;
  }

  /** Background checkpoints run so far (0 without a checkpoint thread). */
  get checkpoints(): number {
    return this.checkpointer?.checkpoints ?? 0;
  }

  /** Why the thread stopped working (it exited or crashed), or undefined while it works. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Commits a batch in one transaction on the writer thread; results come back in request order. */
  write(requests: WriteRequest[], now: number): Promise<CommittedBatch> {
    const id = this.nextId++;
    const { packed, transfer } = packWrites(requests);
    return this.call(id, { type: 'write', id, writes: packed, now }, transfer);
  }

  /** Compacts the log at `revision` on the writer thread. */
  async compact(revision: number): Promise<void> {
    const id = this.nextId++;
    await this.call(id, { type: 'compact', id, revision });
  }

  /** Waits for the work already sent, then closes the thread's connection and ends the thread. */
  async close(): Promise<void> {
    await this.checkpointer?.close();
    await this.last;
    if (this.failure) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage({ type: 'close' } satisfies WriterRequest);
    this.worker.ref();
    await exited;
  }

  private call(id: number, request: WriterRequest | undefined, transfer: ArrayBuffer[] = []): Promise<CommittedBatch> {
    if (this.failure) return Promise.reject(this.failure);
    const answer = new Promise<CommittedBatch>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (request) this.worker.postMessage(request, transfer);
      this.worker.ref();
    });
    this.last = answer.catch(() => undefined);
    return answer;
  }

  private settle(reply: WriterReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) pending.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    else pending.resolve({ results: reply.results, transaction: reply.transaction ?? 0 });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
