import type { KVWriteResult } from '@kapi/storage';
import type { BatchWriter } from './write-batch.js';
import type { WriteRequest } from './write-request.js';
import type { WriterThread } from './writer-thread.js';

interface QueuedWrite {
  request: WriteRequest;
  resolve: (result: KVWriteResult) => void;
  reject: (error: unknown) => void;
}

/** Where batches commit: in this thread's transaction, or on the writer thread. */
export type BatchCommitter = { inline: BatchWriter } | { thread: WriterThread };

/** Most writes committed inline in one transaction, so that one commit never blocks the event loop for long. */
const maxInlineBatch = 1000;

/** How long a deferrable write may wait for other writes to commit with, and how many such writes commit without waiting. */
const maxDeferMs = 20;
const maxDeferred = 16;

/**
 * The group commit's queue: the writes of one turn of the event loop commit together. Inline, a batch
 * commits in the next turn; with a writer thread, it is sent at once and the thread merges the batches
 * waiting for it. After each commit, `committed` sees the requests and their results (to hand events to
 * the watches) before any writer is answered; with a writer thread, also the number of the transaction
 * (batches merged by the thread share it). A deferrable write (a stale value rewritten unchanged, as a
 * storage migration does) waits up to 20 ms for another write to commit with, so that a migration adds
 * few commits (fsyncs) of its own to the foreground's.
 */
export class WriteQueue {
  private readonly queue: QueuedWrite[] = [];
  /** Deferrable writes waiting to commit with the next batch (see KVWriteOptions.deferrable). */
  private readonly deferred: QueuedWrite[] = [];
  private deferTimer: NodeJS.Timeout | undefined;
  private flushScheduled = false;

  constructor(
    private readonly committer: BatchCommitter,
    private readonly now: () => number,
    private readonly committed: (requests: WriteRequest[], results: KVWriteResult[], transaction?: number) => void,
  ) {}

  /** Queues a write; settles after its batch commits. */
  push(request: WriteRequest): Promise<KVWriteResult> {
    return new Promise((resolve, reject) => {
      const write = { request, resolve, reject };
      if (!request.deferrable) {
        this.queue.push(write);
        this.schedule();
        return;
      }
      this.deferred.push(write);
      if (this.deferred.length >= maxDeferred) this.schedule();
      else
        this.deferTimer ??= setTimeout(() => {
          this.deferTimer = undefined;
          this.schedule();
        }, maxDeferMs);
    });
  }

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Commits everything queued now, then (with a writer thread) waits for its answers and closes it. */
  async close(): Promise<void> {
    if ('thread' in this.committer) {
      this.flush();
      await this.committer.thread.close();
    } else {
      while (this.queue.length > 0) this.flush();
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.deferred.length > 0) {
      this.queue.push(...this.deferred.splice(0, this.deferred.length));
      clearTimeout(this.deferTimer);
      this.deferTimer = undefined;
    }
    if ('thread' in this.committer) {
      this.send(this.committer.thread, this.queue.splice(0, this.queue.length));
      return;
    }
    const batch = this.queue.splice(0, maxInlineBatch);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    const requests = requestsOf(batch);
    let results: KVWriteResult[];
    try {
      results = this.committer.inline(requests, this.now());
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    this.answer(batch, requests, results);
  }

  private send(thread: WriterThread, batch: QueuedWrite[]): void {
    if (batch.length === 0) return;
    const requests = requestsOf(batch);
    thread.write(requests, this.now()).then(
      ({ results, transaction }) => this.answer(batch, requests, results, transaction),
      (error: unknown) => {
        for (const write of batch) write.reject(error);
      },
    );
  }

  private answer(batch: QueuedWrite[], requests: WriteRequest[], results: KVWriteResult[], transaction?: number): void {
    try {
      this.committed(requests, results, transaction);
    } finally {
      batch.forEach((write, index) => write.resolve(results[index] as KVWriteResult));
    }
  }
}

function requestsOf(batch: QueuedWrite[]): WriteRequest[] {
  return batch.map((write) => write.request);
}
