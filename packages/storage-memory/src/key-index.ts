import type { KVEntry } from '@kapi/storage';

/**
 * The revision history of one key: parallel arrays of revisions and entries, oldest first.
 * A `null` entry is a tombstone (the key was deleted at that revision).
 */
export interface KeyHistory {
  readonly key: string;
  revisions: number[];
  entries: Array<KVEntry | null>;
  /** Expiry timer of the current incarnation, when written with a TTL. */
  timer?: ReturnType<typeof setTimeout> | undefined;
  /** Wall-clock expiry (ms) of the current incarnation. */
  expiresAt?: number | undefined;
}

/** The live entry of a history (latest, not deleted). */
export function latestOf(history: KeyHistory): KVEntry | undefined {
  return history.entries[history.entries.length - 1] ?? undefined;
}

/** The entry of a history as of `revision`, or undefined when the key did not exist then. */
export function entryAt(history: KeyHistory, revision: number): KVEntry | undefined {
  const revisions = history.revisions;
  // Fast path: the latest version is usually what is asked for.
  let index = revisions.length - 1;
  if ((revisions[index] as number) > revision) {
    // Find the last index with revisions[index] <= revision.
    let low = 0;
    let high = index;
    index = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((revisions[middle] as number) <= revision) {
        index = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (index < 0) return undefined;
  }
  return history.entries[index] ?? undefined;
}

function compareKeys(left: KeyHistory, right: KeyHistory): number {
  return left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
}

/**
 * A sorted index of keys with each key's history, so reads at older revisions work until compaction.
 * New keys are appended to a side list and merged into the sorted order lazily, on the next ordered
 * read, so creates stay O(1).
 */
export class KeyIndex {
  private readonly histories = new Map<string, KeyHistory>();
  /** Histories sorted by key in UTF-16 code units (excluding `added`). */
  private sorted: KeyHistory[] = [];
  /** Histories added since the last merge into `sorted`. */
  private added: KeyHistory[] = [];

  /** The history of `key`, if any is retained. */
  history(key: string): KeyHistory | undefined {
    return this.histories.get(key);
  }

  /** The live entry of `key` (latest, not deleted). */
  latest(key: string): KVEntry | undefined {
    const history = this.histories.get(key);
    return history ? latestOf(history) : undefined;
  }

  /** The entry of `key` as of `revision`, or undefined when it did not exist then. */
  at(key: string, revision: number): KVEntry | undefined {
    const history = this.histories.get(key);
    return history ? entryAt(history, revision) : undefined;
  }

  /** Records a new version (or a tombstone when `entry` is null) of `key` at `revision`. */
  record(key: string, revision: number, entry: KVEntry | null): KeyHistory {
    let history = this.histories.get(key);
    if (!history) {
      history = { key, revisions: [], entries: [] };
      this.histories.set(key, history);
      this.added.push(history);
    }
    history.revisions.push(revision);
    history.entries.push(entry);
    return history;
  }

  /** Sorted position of the first key >= `key`. */
  lowerBound(key: string): number {
    const sorted = this.merged();
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sorted[middle] as KeyHistory).key < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The history at sorted position `index`. */
  historyAt(index: number): KeyHistory | undefined {
    return this.merged()[index];
  }

  /**
   * Drops history older than `revision`: per key, every version before the one visible at `revision`,
   * and that one too when it is a tombstone. Keys left without history leave the index.
   */
  compact(revision: number): void {
    let removed = false;
    for (const [key, history] of this.histories) {
      const revisions = history.revisions;
      if ((revisions[0] as number) >= revision) continue;
      let visible = -1;
      for (let index = 0; index < revisions.length && (revisions[index] as number) <= revision; index++) visible = index;
      const drop = visible >= 0 && history.entries[visible] === null ? visible + 1 : visible;
      if (drop <= 0) continue;
      revisions.splice(0, drop);
      history.entries.splice(0, drop);
      if (revisions.length === 0) {
        this.histories.delete(key);
        removed = true;
      }
    }
    if (!removed) return;
    const sorted = this.merged();
    let write = 0;
    for (let read = 0; read < sorted.length; read++) {
      const history = sorted[read] as KeyHistory;
      if (this.histories.get(history.key) === history) sorted[write++] = history;
    }
    sorted.length = write;
  }

  /** Every retained history (for clearing timers on close). */
  allHistories(): IterableIterator<KeyHistory> {
    return this.histories.values();
  }

  /** The sorted histories, after merging in those added since the last call. */
  private merged(): KeyHistory[] {
    if (this.added.length === 0) return this.sorted;
    const added = this.added.sort(compareKeys);
    this.added = [];
    const sorted = this.sorted;
    if (sorted.length === 0) {
      this.sorted = added;
      return added;
    }
    const result = new Array<KeyHistory>(sorted.length + added.length);
    let left = 0;
    let right = 0;
    let write = 0;
    while (left < sorted.length && right < added.length) {
      const a = sorted[left] as KeyHistory;
      const b = added[right] as KeyHistory;
      if (a.key < b.key) {
        result[write++] = a;
        left++;
      } else {
        result[write++] = b;
        right++;
      }
    }
    while (left < sorted.length) result[write++] = sorted[left++] as KeyHistory;
    while (right < added.length) result[write++] = added[right++] as KeyHistory;
    this.sorted = result;
    return result;
  }
}
