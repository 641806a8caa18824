import {
  FutureRevisionError,
  RevisionCompactedError,
  StorageError,
  type KVBackend,
  type KVConditionOptions,
  type KVEntry,
  type KVEvent,
  type KVGetResult,
  type KVRangeOptions,
  type KVRangeResult,
  type KVWatch,
  type KVWatchListener,
  type KVWatchOptions,
  type KVWriteCondition,
  type KVWriteOptions,
  type KVWriteResult,
} from '@kapi/storage';
import { KeyIndex, entryAt, latestOf, type KeyHistory } from './key-index.js';
import { WatchHub, type HubWatcher } from './watch-hub.js';

/** Options of {@link MemoryBackend}. */
export interface MemoryBackendOptions {
  /** Period of progress notifications to watches that asked for them (default 5000 ms). */
  progressNotifyIntervalMs?: number | undefined;
  /** Wall clock in ms, used for TTL bookkeeping (default `Date.now`). */
  now?: (() => number) | undefined;
  /**
   * Compact automatically every this many ms (default 0: never), to the revision seen one interval
   * earlier, like kube-apiserver's etcd compactor. Without it history grows until `compact` is called.
   */
  compactionIntervalMs?: number | undefined;
}

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/**
 * An in-process MVCC {@link KVBackend}: one global revision (an empty backend is at revision 1, each
 * write adds one), per-key history until compaction (reads at older revisions work), watch replay from
 * any retained revision, periodic and requested progress notifications, TTLs and write conditions.
 *
 * Values are stored by reference: callers must not mutate a `Uint8Array` after writing it or after
 * reading it back.
 */
export class MemoryBackend implements KVBackend {
  readonly name = 'memory';
  private readonly index = new KeyIndex();
  /** Events of retained revisions: the event of revision `r` is `log[r - logStart]`. */
  log: KVEvent[] = [];
  logStart = 2;
  revision = 1;
  private compacted = 0;
  private closed = false;
  private readonly hub: WatchHub;
  private readonly now: () => number;
  private readonly compactionTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryBackendOptions = {}) {
    this.hub = new WatchHub(this, options.progressNotifyIntervalMs ?? 5000);
    this.now = options.now ?? Date.now;
    const interval = options.compactionIntervalMs ?? 0;
    if (interval > 0) {
      let previous = 0;
      this.compactionTimer = setInterval(() => {
        if (previous > this.compacted) void this.compact(previous).catch(() => undefined);
        previous = this.revision;
      }, interval);
      this.compactionTimer.unref?.();
    }
  }

  /** Number of open watches (for tests and metrics). */
  get watchCount(): number {
    return this.hub.size;
  }

  async get(key: string, options?: { revision?: number }): Promise<KVGetResult> {
    this.checkOpen(key);
    const revision = this.readRevision(options?.revision);
    const entry = revision === this.revision ? this.index.latest(key) : this.index.at(key, revision);
    if (!entry) return { revision };
    return { entry: this.decorate(entry), revision };
  }

  async range(options: KVRangeOptions): Promise<KVRangeResult> {
    this.checkOpen(options.key);
    const revision = this.readRevision(options.revision);
    const latest = revision === this.revision;
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const entries: KVEntry[] = [];
    let count = 0;
    let more = false;
    const visit = (entry: KVEntry | undefined): void => {
      if (!entry) return;
      count++;
      if (options.countOnly) return;
      if (entries.length < limit) entries.push(this.decorate(entry));
      else more = true;
    };
    if (!options.prefix) {
      if (options.startKey === undefined || options.startKey <= options.key) {
        visit(latest ? this.index.latest(options.key) : this.index.at(options.key, revision));
      }
    } else {
      const prefix = options.key;
      const start = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
      for (let position = this.index.lowerBound(start); ; position++) {
        const history = this.index.historyAt(position);
        if (history === undefined || !history.key.startsWith(prefix)) break;
        visit(latest ? latestOf(history) : entryAt(history, revision));
      }
    }
    return { entries, more, count, revision };
  }

  async create(key: string, value: Uint8Array, options?: KVWriteOptions): Promise<KVWriteResult> {
    this.checkOpen(key);
    if (options?.condition && !this.conditionHolds(options.condition)) {
      return { succeeded: false, reason: 'condition', revision: this.revision };
    }
    const current = this.index.latest(key);
    if (current) return { succeeded: false, reason: 'conflict', current: this.decorate(current), revision: this.revision };
    return { succeeded: true, revision: this.put(key, value, undefined, options?.ttlSeconds) };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number, options?: KVWriteOptions): Promise<KVWriteResult> {
    this.checkOpen(key);
    if (options?.condition && !this.conditionHolds(options.condition)) {
      return { succeeded: false, reason: 'condition', revision: this.revision };
    }
    const current = this.index.latest(key);
    if (!current || current.modRevision !== expectedModRevision) {
      return current
        ? { succeeded: false, reason: 'conflict', current: this.decorate(current), revision: this.revision }
        : { succeeded: false, reason: 'conflict', revision: this.revision };
    }
    const revision = this.put(key, value, current, options?.ttlSeconds);
    return { succeeded: true, revision, previous: current };
  }

  async delete(key: string, expectedModRevision: number, options?: KVConditionOptions): Promise<KVWriteResult> {
    this.checkOpen(key);
    if (options?.condition && !this.conditionHolds(options.condition)) {
      return { succeeded: false, reason: 'condition', revision: this.revision };
    }
    const current = this.index.latest(key);
    if (!current || current.modRevision !== expectedModRevision) {
      return current
        ? { succeeded: false, reason: 'conflict', current: this.decorate(current), revision: this.revision }
        : { succeeded: false, reason: 'conflict', revision: this.revision };
    }
    return { succeeded: true, revision: this.remove(key, current), previous: current };
  }

  watch(options: KVWatchOptions, listener: KVWatchListener): KVWatch {
    if (this.closed) {
      queueMicrotask(() => listener.onError(StorageError.unreachable(options.key, 'memory backend is closed')));
      return { cancel: () => undefined };
    }
    const start = options.startRevision > 0 ? options.startRevision : this.revision + 1;
    if (start < this.compacted) {
      const error = new RevisionCompactedError(start, this.compacted);
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled) listener.onError(error);
      });
      return { cancel: () => (cancelled = true) };
    }
    const watcher: HubWatcher = {
      key: options.key,
      prefix: options.prefix,
      next: start,
      progressNotify: options.progressNotify ?? false,
      progressPending: false,
      listener,
    };
    this.hub.add(watcher);
    return { cancel: () => this.hub.remove(watcher) };
  }

  async currentRevision(): Promise<number> {
    this.checkOpen('');
    return this.revision;
  }

  /** Compacts history older than `revision`. Compacting an already compacted revision is a no-op. */
  async compact(revision: number): Promise<void> {
    this.checkOpen('');
    if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
    if (revision <= this.compacted) return;
    this.hub.flush();
    this.index.compact(revision);
    const drop = Math.min(revision - this.logStart, this.log.length);
    if (drop > 0) {
      this.log.splice(0, drop);
      this.logStart += drop;
    }
    this.compacted = revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async requestProgress(): Promise<void> {
    this.checkOpen('');
    this.hub.requestProgress();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer) clearInterval(this.compactionTimer);
    for (const history of this.index.allHistories()) {
      if (history.timer) clearTimeout(history.timer);
      history.timer = undefined;
    }
    this.hub.closeAll(StorageError.unreachable('', 'memory backend is closed'));
  }

  private checkOpen(key: string): void {
    if (this.closed) throw StorageError.unreachable(key, 'memory backend is closed');
  }

  private readRevision(requested: number | undefined): number {
    if (!requested || requested <= 0) return this.revision;
    if (requested < this.compacted) throw new RevisionCompactedError(requested, this.compacted);
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    return requested;
  }

  private conditionHolds(condition: KVWriteCondition): boolean {
    const entry = this.index.latest(condition.key);
    return entry !== undefined && decoder.decode(entry.value) === condition.value;
  }

  /** Adds the remaining TTL to the live entry of a key written with one. */
  private decorate(entry: KVEntry): KVEntry {
    const history = this.index.history(entry.key);
    if (history?.expiresAt === undefined || this.index.latest(entry.key) !== entry) return entry;
    const ttlSeconds = Math.max(0, Math.ceil((history.expiresAt - this.now()) / 1000));
    return { ...entry, ttlSeconds };
  }

  private put(key: string, value: Uint8Array, previous: KVEntry | undefined, ttlSeconds: number | undefined): number {
    const revision = ++this.revision;
    const entry: KVEntry = { key, value, createRevision: previous ? previous.createRevision : revision, modRevision: revision };
    const history = this.index.record(key, revision, entry);
    this.clearTimer(history);
    if (ttlSeconds !== undefined && ttlSeconds > 0) this.startTimer(history, entry, ttlSeconds);
    this.log.push(previous ? { type: 'put', entry, previous } : { type: 'put', entry });
    this.hub.schedule();
    return revision;
  }

  private remove(key: string, previous: KVEntry): number {
    const revision = ++this.revision;
    const history = this.index.record(key, revision, null);
    this.clearTimer(history);
    const entry: KVEntry = { key, value: EMPTY, createRevision: previous.createRevision, modRevision: revision };
    this.log.push({ type: 'delete', entry, previous });
    this.hub.schedule();
    return revision;
  }

  private startTimer(history: KeyHistory, entry: KVEntry, ttlSeconds: number): void {
    history.expiresAt = this.now() + ttlSeconds * 1000;
    history.timer = setTimeout(() => {
      history.timer = undefined;
      if (!this.closed && this.index.latest(entry.key) === entry) this.remove(entry.key, entry);
    }, ttlSeconds * 1000);
    history.timer.unref?.();
  }

  private clearTimer(history: KeyHistory): void {
    if (history.timer) clearTimeout(history.timer);
    history.timer = undefined;
    history.expiresAt = undefined;
  }
}
