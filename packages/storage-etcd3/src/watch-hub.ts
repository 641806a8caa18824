import {
  RevisionCompactedError,
  StorageError,
  type KVEntry,
  type KVEvent,
  type KVWatch,
  type KVWatchListener,
} from '@kapi/storage';
import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import type { KeyCodec } from './etcd-keys.js';

/** The raw etcd watch stream (one gRPC bidi call; many watches multiplexed on it). */
export type RawWatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

/** Options of a {@link WatchHub}. */
export interface WatchHubOptions {
  /** Opens a new raw watch stream. */
  openStream(): Promise<RawWatchStream>;
  keys: KeyCodec;
  /** First delay before re-creating a failed stream. Default 100 ms. */
  initialBackoffMs?: number;
  /** Longest delay between attempts. Default 2 s. */
  maxBackoffMs?: number;
  /** Told about compacted revisions learnt from cancelled watches. */
  onCompacted?(revision: number): void;
}

/** What one watch covers: an exact key (`rangeEnd` absent) or a key range. */
export interface WatchRange {
  key: Buffer;
  rangeEnd?: Buffer;
}

/** What a progress request is about: every watch, or those overlapping a key range. */
type ProgressScope = WatchRange | 'all';

/** Scoped progress requests remembered between two replies before they count as one for every watch. */
const maxScopes = 64;

/** True when `key` is below the end of a range (`[0]`, etcd's "no end", or absent for an exact key `start`). */
function below(key: Buffer, start: Buffer, end: Buffer | undefined): boolean {
  if (end === undefined) return Buffer.compare(key, start) <= 0;
  return (end.length === 1 && end[0] === 0) || Buffer.compare(key, end) < 0;
}

/** True when two key ranges share a key. */
function overlaps(left: WatchRange, right: WatchRange): boolean {
  return below(left.key, right.key, right.rangeEnd) && below(right.key, left.key, left.rangeEnd);
}

interface StreamState {
  readonly duplex: RawWatchStream;
  /** Watches created on this stream, by their (client-assigned) watch id. */
  readonly watchers: Map<string, Watcher>;
  /** Ids of creates not yet confirmed, in the order sent (etcd confirms creates in order). */
  readonly pendingCreates: string[];
  dead: boolean;
}

const EMPTY = new Uint8Array(0);

class Watcher implements KVWatch {
  watchId: string | undefined;
  stream: StreamState | undefined;
  fragments: IEvent[] = [];
  closed = false;

  constructor(
    private readonly hub: WatchHub,
    readonly range: WatchRange,
    /** The next revision to deliver: the resume point if the stream must be re-created. */
    public nextRevision: number,
    readonly progressNotify: boolean,
    readonly listener: KVWatchListener,
    /** Ask etcd for each event's previous key-value (`prev_kv`). */
    readonly previous: boolean,
  ) {}

  cancel(): void {
    this.hub.remove(this);
  }
}

function shutDown(duplex: RawWatchStream): void {
  // end() first so that etcd3's error hook (which resets every channel on a "recoverable" error such as
  // CANCELLED) sees a non-writable stream; cancel() then really ends the call (end() alone only half-closes).
  try {
    duplex.end();
  } catch {
    // already ended
  }
  try {
    duplex.cancel();
  } catch {
    // already cancelled
  }
}

/**
 * etcd watches on the raw bidi stream, with the resume logic etcd3's Watcher gets wrong: the next revision
 * comes only from delivered events' mod_revision and from progress notifications for the watch's own id;
 * a failed stream is re-created (with backoff) from there; a compacted start revision ends the watch with
 * {@link RevisionCompactedError}; RequestProgress replies (`watch_id -1`) fan out to every watch on the stream.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  private stream: StreamState | undefined;
  private opening = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private lastWatchId = 0;
  private closed = false;
  /**
   * What the progress requests since the last reply asked for (`all`, or key ranges), and what those before
   * it asked for. etcd answers RequestProgress for the whole stream, with no word of which request a reply
   * answers (it may fold several into one), so a reply notifies the watches of both: a request sent just as
   * etcd answered an earlier one is then covered by the next reply too.
   */
  private requestedScopes: ProgressScope[] = [];
  private answeredScopes: ProgressScope[] = [];

  constructor(private readonly options: WatchHubOptions) {}

  /** Number of live watches. */
  get size(): number {
    return this.watchers.size;
  }

  /**
   * Starts a watch of `range` from `startRevision` (inclusive; 0 means from the next write on), with each
   * event's previous key-value unless `previous` is false.
   */
  watch(
    range: WatchRange,
    startRevision: number,
    progressNotify: boolean,
    listener: KVWatchListener,
    previous = true,
  ): KVWatch {
    // 0 (or less) means "from now", as in etcd; the start is then learnt from the created response.
    const watcher = new Watcher(this, range, Math.max(0, startRevision), progressNotify, listener, previous);
    if (this.closed) {
      watcher.closed = true;
      queueMicrotask(() => listener.onError(this.closedError(watcher)));
      return watcher;
    }
    this.watchers.add(watcher);
    if (this.stream) this.sendCreate(this.stream, watcher);
    else this.ensureStream();
    return watcher;
  }

  /**
   * Sends a RequestProgress on the current stream. etcd's reply covers every watch on it; it is handed to
   * the watches that `scope` (a key range; default every watch) overlaps: a consistent read of one resource
   * then wakes only that resource's watch cache, not every cache of the server.
   */
  requestProgress(scope?: WatchRange): void {
    const stream = this.stream;
    if (!stream || stream.dead || stream.watchers.size === 0) return;
    if (scope === undefined || this.requestedScopes.length >= maxScopes) this.requestedScopes = ['all'];
    else if (this.requestedScopes[0] !== 'all') this.requestedScopes.push(scope);
    stream.duplex.write({ progress_request: {} });
  }

  /** Tears the stream down and ends every watch with a StorageError Unreachable ("etcd3 backend is closed"). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const watchers = [...this.watchers];
    for (const watcher of watchers) watcher.closed = true;
    this.watchers.clear();
    this.stopStream();
    for (const watcher of watchers) {
      try {
        watcher.listener.onError(this.closedError(watcher));
      } catch {
        // the owner's problem
      }
    }
  }

  private closedError(watcher: Watcher): Error {
    return StorageError.unreachable(this.options.keys.decode(watcher.range.key), 'etcd3 backend is closed');
  }

  /** Removes a watch (cancelled by its owner or failed). */
  remove(watcher: Watcher): void {
    if (watcher.closed) return;
    watcher.closed = true;
    this.watchers.delete(watcher);
    const stream = watcher.stream;
    if (stream && watcher.watchId !== undefined) {
      stream.watchers.delete(watcher.watchId);
      if (!stream.dead && this.watchers.size > 0) {
        stream.duplex.write({ cancel_request: { watch_id: watcher.watchId } });
      }
    }
    if (this.watchers.size === 0) this.stopStream();
  }

  private stopStream(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.attempt = 0;
    const stream = this.stream;
    this.stream = undefined;
    if (stream && !stream.dead) {
      stream.dead = true;
      shutDown(stream.duplex);
    }
  }

  private ensureStream(): void {
    if (this.closed || this.stream || this.opening || this.reconnectTimer || this.watchers.size === 0) return;
    this.opening = true;
    this.options.openStream().then(
      (duplex) => {
        this.opening = false;
        if (this.closed || this.watchers.size === 0) {
          shutDown(duplex);
          return;
        }
        const stream: StreamState = { duplex, watchers: new Map(), pendingCreates: [], dead: false };
        this.stream = stream;
        duplex.on('data', (response) => this.onResponse(stream, response));
        duplex.on('error', () => this.onStreamFailure(stream));
        duplex.on('end', () => this.onStreamFailure(stream));
        for (const watcher of this.watchers) this.sendCreate(stream, watcher);
      },
      () => {
        this.opening = false;
        this.scheduleReconnect();
      },
    );
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.watchers.size === 0) return;
    const initial = this.options.initialBackoffMs ?? 100;
    const max = this.options.maxBackoffMs ?? 2000;
    const base = Math.min(max, initial * 2 ** this.attempt);
    this.attempt++;
    const delay = base / 2 + Math.random() * (base / 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.ensureStream();
    }, delay);
  }

  private onStreamFailure(stream: StreamState): void {
    if (stream.dead) return;
    stream.dead = true;
    shutDown(stream.duplex);
    if (this.stream === stream) this.stream = undefined;
    for (const watcher of stream.watchers.values()) {
      watcher.watchId = undefined;
      watcher.stream = undefined;
      watcher.fragments = [];
    }
    stream.watchers.clear();
    this.scheduleReconnect();
  }

  private sendCreate(stream: StreamState, watcher: Watcher): void {
    const watchId = String(++this.lastWatchId);
    watcher.watchId = watchId;
    watcher.stream = stream;
    stream.watchers.set(watchId, watcher);
    stream.pendingCreates.push(watchId);
    stream.duplex.write({
      create_request: {
        key: watcher.range.key,
        ...(watcher.range.rangeEnd ? { range_end: watcher.range.rangeEnd } : {}),
        ...(watcher.nextRevision > 0 ? { start_revision: watcher.nextRevision } : {}),
        // Always asked for: progress moves the resume point forward even when the owner does not want it.
        progress_notify: true,
        prev_kv: watcher.previous,
        fragment: true,
        watch_id: watchId,
      },
    });
  }

  private onResponse(stream: StreamState, response: IWatchResponse): void {
    if (stream.dead) return;
    // int64 fields arrive as decimal strings, or as numbers where protobufjs has no usable Long: compare as numbers.
    const watchId = String(response.watch_id);
    if (response.created) {
      // Confirms the oldest pending create; with id -1 it refuses it (e.g. permission denied).
      const confirmed = watchId === '-1' ? stream.pendingCreates.shift() : watchId;
      const index = confirmed === undefined ? -1 : stream.pendingCreates.indexOf(confirmed);
      if (index >= 0) stream.pendingCreates.splice(index, 1);
      if (watchId === '-1') {
        const refused = confirmed === undefined ? undefined : stream.watchers.get(confirmed);
        if (refused)
          this.fail(
            refused,
            new Error(`etcd refused the watch: ${response.cancel_reason || 'no reason given'}`),
          );
        return;
      }
    } else if (watchId === '-1') {
      // A RequestProgress reply covers every watch of the stream: each resumes from it, and those that the
      // requests since the one before asked about are notified.
      if (!response.canceled) {
        const revision = Number(response.header.revision);
        const scopes = this.answeredScopes.concat(this.requestedScopes);
        this.answeredScopes = this.requestedScopes;
        this.requestedScopes = [];
        const everyWatch = scopes.length === 0 || scopes.includes('all');
        for (const watcher of [...stream.watchers.values()]) {
          this.progress(watcher, revision, everyWatch || scopes.some((scope) => scope !== 'all' && overlaps(watcher.range, scope)));
        }
      }
      return;
    }
    const watcher = stream.watchers.get(watchId);
    if (!watcher || watcher.closed) return;
    if (response.canceled) {
      const compacted = Number(response.compact_revision);
      if (compacted > 0) {
        this.options.onCompacted?.(compacted);
        this.fail(watcher, new RevisionCompactedError(watcher.nextRevision, compacted));
      } else {
        this.fail(
          watcher,
          new Error(`etcd cancelled the watch: ${response.cancel_reason || 'no reason given'}`),
        );
      }
      return;
    }
    if (response.created) {
      this.attempt = 0;
      // Only a "from now" watch takes its start from the created header; otherwise the next revision moves
      // only with delivered events and progress notifications.
      if (watcher.nextRevision === 0) watcher.nextRevision = Number(response.header.revision) + 1;
      return;
    }
    if (response.fragment) {
      for (const event of response.events) watcher.fragments.push(event);
      return;
    }
    let events = response.events;
    if (watcher.fragments.length > 0) {
      events = watcher.fragments.concat(events);
      watcher.fragments = [];
    }
    if (events.length > 0) {
      this.deliver(watcher, events);
      return;
    }
    if (Number(response.compact_revision) === 0 && Number(response.header.revision) !== 0) {
      this.progress(watcher, Number(response.header.revision));
    }
  }

  private deliver(watcher: Watcher, raw: IEvent[]): void {
    const events: KVEvent[] = [];
    for (const event of raw) {
      const revision = Number(event.kv.mod_revision);
      if (revision < watcher.nextRevision) continue; // already delivered before a resume
      events.push(this.toEvent(event));
    }
    const last = events[events.length - 1];
    if (!last) return;
    watcher.nextRevision = last.entry.modRevision + 1;
    try {
      watcher.listener.onEvents(events);
    } catch (error) {
      this.fail(watcher, error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Moves the watch's resume point to `revision`, and tells its owner (when `notify` and it asked for progress). */
  private progress(watcher: Watcher, revision: number, notify = true): void {
    if (watcher.closed || revision + 1 < watcher.nextRevision) return;
    watcher.nextRevision = revision + 1;
    if (!notify || !watcher.progressNotify || !watcher.listener.onProgress) return;
    try {
      watcher.listener.onProgress(revision);
    } catch (error) {
      this.fail(watcher, error instanceof Error ? error : new Error(String(error)));
    }
  }

  private fail(watcher: Watcher, error: Error): void {
    if (watcher.closed) return;
    this.remove(watcher);
    try {
      watcher.listener.onError(error);
    } catch {
      // the owner's problem; nothing more is delivered anyway
    }
  }

  private toEvent(event: IEvent): KVEvent {
    const keys = this.options.keys;
    const previous: KVEntry | undefined = event.prev_kv ? keys.entry(event.prev_kv) : undefined;
    if (event.type === 'Delete') {
      const entry: KVEntry = {
        key: keys.decode(event.kv.key),
        value: EMPTY,
        createRevision: previous?.createRevision ?? 0,
        modRevision: Number(event.kv.mod_revision),
      };
      return previous ? { type: 'delete', entry, previous } : { type: 'delete', entry };
    }
    const entry = keys.entry(event.kv);
    return previous ? { type: 'put', entry, previous } : { type: 'put', entry };
  }
}
