import type { Etcd3Backend } from './etcd3-backend.js';

/** Options of {@link startCompactor}. */
export interface CompactorOptions {
  /** The backend to compact (only its compare-and-swap step and `compact` are used). */
  backend: Pick<Etcd3Backend, 'swapCompactRevision' | 'compact'>;
  /** Time between compactions (`--etcd-compaction-interval`). Default 5 minutes. */
  intervalMs?: number;
  /** Called after this compactor compacted etcd to `revision`. */
  onCompact?(revision: number): void;
  /** Called when a step fails (the compactor keeps going). Default: ignore. */
  onError?(error: unknown): void;
}

/** A compactor started by {@link startCompactor}. */
export interface RunningCompactor {
  /** Stops the timer; resolves when a step in flight has finished. */
  stop(): Promise<void>;
}

/**
 * Compacts etcd periodically as kube-apiserver does (`etcd3/compact.go`). Every interval each compactor
 * tries a compare-and-swap on `compact_rev_key` against the key's version it saw last; the version acts as
 * a lease, so among compactors sharing an etcd only the one that wins compacts, and it compacts to the
 * revision it saw one interval earlier. A loser adopts the new version and competes again next interval,
 * so with failover history is compacted within one to two intervals.
 */
export function startCompactor(options: CompactorOptions): RunningCompactor {
  const intervalMs = options.intervalMs ?? 5 * 60 * 1000;
  let compactTime = 0;
  let revision = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const step = async (): Promise<void> => {
    const swap = await options.backend.swapCompactRevision(compactTime, revision);
    const target = revision;
    if (!swap.succeeded) {
      // Someone else compacted in this interval: follow their version and the current revision.
      compactTime = swap.version;
      revision = swap.currentRevision;
      return;
    }
    compactTime = swap.version;
    revision = swap.currentRevision;
    if (target === 0) return; // nothing to compact on the first round
    await options.backend.compact(target);
    options.onCompact?.(target);
  };

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = step()
        .catch((error: unknown) => options.onError?.(error))
        .finally(schedule);
    }, intervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
