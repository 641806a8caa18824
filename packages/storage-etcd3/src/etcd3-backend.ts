import type {
  KVBackend,
  KVConditionOptions,
  KVEntry,
  KVGetResult,
  KVRangeOptions,
  KVRangeResult,
  KVWatch,
  KVWatchListener,
  KVWatchOptions,
  KVWriteCondition,
  KVWriteOptions,
  KVWriteResult,
} from '@kapi/storage';
import { randomInt } from 'node:crypto';
import { circuitBreaker, ConsecutiveBreaker, ConstantBackoff, handleWhen, noop, retry } from 'cockatiel';
import {
  Etcd3,
  isRecoverableError,
  type ICompare,
  type IOptions,
  type IRequestOp,
  type ITxnResponse,
} from 'etcd3';
import { releaseClosedHttp2Streams } from './closed-stream-release.js';
import { cheapenHttp2RequestBinding } from './request-binding.js';
import { skipGrpcCallerStacks } from './grpc-caller-stacks.js';
import { asBuffer, KeyCodec, prefixRangeEndBytes } from './etcd-keys.js';
import { isCompactedError, translateError } from './errors.js';
import { LeaseManager } from './lease-manager.js';
import { supportsRequestProgress } from './server-version.js';
import { WatchHub, type WatchRange } from './watch-hub.js';

/** The key through which compactors coordinate (Kubernetes' `compact_rev_key`); never prefixed. */
export const COMPACT_REVISION_KEY = 'compact_rev_key';

/**
 * True for a call that failed before any member got it (no connection could be made), so running it
 * again elsewhere cannot apply it twice (clientv3's `isSafeRetryMutableRPC`).
 */
function neverReachedMember(error: Error): boolean {
  return isRecoverableError(error) && /No connection established|ECONNREFUSED/.test(error.message);
}

/** Options of {@link Etcd3Backend.connect}. */
export interface Etcd3BackendOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379`. */
  endpoints: string[];
  /** Prepended to every key (like kube-apiserver's `--etcd-prefix`); stripped from keys read back. */
  prefix?: string;
  /** How long {@link Etcd3Backend.connect} waits for the first answer. Default 5 s. */
  dialTimeoutMs?: number;
  /** Deadline of each unary call. Default 30 s. */
  requestTimeoutMs?: number;
  /** gRPC receive limit. Default 256 MiB (grpc-js' 4 MiB default breaks large lists and watch batches). */
  maxReceiveMessageBytes?: number;
  /** First and longest delay between attempts to re-create a failed watch stream. Default 100 ms / 2 s. */
  watchBackoffMs?: { initial?: number; max?: number };
  /** TLS material, passed to etcd3. */
  credentials?: { rootCertificate: Buffer; privateKey?: Buffer; certChain?: Buffer };
  /** etcd user authentication, passed to etcd3. */
  auth?: { username: string; password: string };
  /**
   * Call {@link releaseClosedHttp2Streams} (default true): the HTTP/2 client streams of the process drop
   * their listeners once over, so that grpc-js calls are reclaimed by scavenges rather than promoted.
   */
  releaseClosedStreams?: boolean;
  /**
   * Call {@link cheapenHttp2RequestBinding} (default true): Node 20 spends ~13 µs of each HTTP/2 client
   * request (one per etcd call) building deprecated accessors it never reads.
   */
  cheapRequestBinding?: boolean;
  /**
   * Call {@link skipGrpcCallerStacks} (default true): grpc-js captures a stack trace at the start of each
   * etcd call (~28 µs from a busy server's optimised code), used only in a failed call's error.
   */
  skipCallerStacks?: boolean;
}

/** Result of one step of the compactors' compare-and-swap on {@link COMPACT_REVISION_KEY}. */
export interface CompactRevisionSwap {
  /** True when this caller won: the key's version was the expected one and now holds `revision`. */
  succeeded: boolean;
  /** The key's version after the step (the compaction "lease" counter). */
  version: number;
  /** The store revision at the step. */
  currentRevision: number;
}

const EMPTY = new Uint8Array(0);

/**
 * Grants a lease with an id chosen here, below 2^53. etcd's own ids use all 63 bits, which protobufjs can
 * only carry exactly when it has a working `long` (not the case under some module conditions, e.g. vitest's
 * `--conditions import`, where they silently round and writes fail with "requested lease not found").
 */
async function grantLease(client: Etcd3, ttlSeconds: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const id = randomInt(0, 2 ** 21) * 2 ** 32 + randomInt(1, 2 ** 32);
    try {
      await client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: id });
      return String(id);
    } catch (error) {
      if (attempt < 3 && error instanceof Error && error.message.includes('lease already exists')) continue;
      throw error;
    }
  }
}

/**
 * {@link KVBackend} on a real etcd v3 cluster. Unary calls go through the etcd3 client (without automatic
 * retries: a txn is not idempotent); watches use an own layer on the raw watch stream ({@link WatchHub}).
 * Every write is one txn round trip. `requestProgress` exists only when the server answers it safely
 * (etcd >= 3.4.31 / 3.5.13).
 *
 * @example
 * const kv = await Etcd3Backend.connect({ endpoints: ['http://127.0.0.1:2379'], prefix: '/registry' });
 * const store = new Store({ kv });
 */
export class Etcd3Backend implements KVBackend {
  readonly name = 'etcd3';
  /** Present only when the server version answers RequestProgress safely. */
  declare readonly requestProgress?: (key?: string) => Promise<void>;
  private readonly keys: KeyCodec;
  private readonly hub: WatchHub;
  private readonly leases: LeaseManager;
  private readonly compactKey = Buffer.from(COMPACT_REVISION_KEY);
  private knownCompactedRevision = 0;
  private closed = false;

  private constructor(
    /** The underlying etcd3 client (for advanced use; its retries are disabled). */
    readonly client: Etcd3,
    /** The etcd server version, from the maintenance status at connect time. */
    readonly serverVersion: string,
    options: Etcd3BackendOptions,
  ) {
    this.keys = new KeyCodec(options.prefix ?? '');
    this.hub = new WatchHub({
      openStream: () => client.watchClient.watch(),
      keys: this.keys,
      ...(options.watchBackoffMs?.initial !== undefined
        ? { initialBackoffMs: options.watchBackoffMs.initial }
        : {}),
      ...(options.watchBackoffMs?.max !== undefined ? { maxBackoffMs: options.watchBackoffMs.max } : {}),
      onCompacted: (revision) => this.noteCompacted(revision),
    });
    this.leases = new LeaseManager({
      grant: (ttlSeconds) => grantLease(client, ttlSeconds),
    });
    if (supportsRequestProgress(serverVersion)) {
      // etcd answers for every watch of the stream; the hub notifies those of keys under `key`.
      this.requestProgress = async (key) => {
        if (key === undefined) return this.hub.requestProgress();
        const start = this.keys.encode(key);
        this.hub.requestProgress({ key: start, rangeEnd: prefixRangeEndBytes(start) });
      };
    }
  }

  /** Connects to etcd and reads its version (which decides whether `requestProgress` is offered). */
  static async connect(options: Etcd3BackendOptions): Promise<Etcd3Backend> {
    if (options.endpoints.length === 0) throw new Error('Etcd3Backend.connect: no endpoints given');
    if (options.releaseClosedStreams !== false) releaseClosedHttp2Streams();
    if (options.cheapRequestBinding !== false) cheapenHttp2RequestBinding();
    if (options.skipCallerStacks !== false) skipGrpcCallerStacks();
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    const dialTimeoutMs = options.dialTimeoutMs ?? 5000;
    const settings = (hosts: string[]): IOptions => ({
      hosts,
      grpcOptions: {
        'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 256 * 1024 * 1024,
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 2000,
        'grpc.keepalive_time_ms': 30_000,
        'grpc.keepalive_timeout_ms': 10_000,
      },
      // A txn is not idempotent and the Store owns retries, so a call is re-run (on the next member)
      // only when it provably never reached a member, as etcd's clientv3 does for mutations. With
      // several endpoints a per-host circuit breaker steers calls away from a dead member.
      faultHandling: {
        global:
          hosts.length > 1
            ? retry(handleWhen(neverReachedMember), { maxAttempts: hosts.length, backoff: new ConstantBackoff(0) })
            : noop,
        host: () =>
          hosts.length > 1
            ? circuitBreaker(handleWhen(isRecoverableError), {
                halfOpenAfter: 1000,
                breaker: new ConsecutiveBreaker(3),
              })
            : noop,
      },
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(options.auth ? { auth: options.auth } : {}),
    });
    // Ask the members in turn for their version (a call through the pool would pick one at random).
    const deadline = Date.now() + dialTimeoutMs;
    let lastError: unknown;
    for (const endpoint of options.endpoints) {
      const probe = new Etcd3(settings([endpoint]));
      try {
        const status = await probe.maintenance.status({ deadline });
        return new Etcd3Backend(new Etcd3(settings(options.endpoints)), status.version, options);
      } catch (error) {
        lastError = error;
      } finally {
        probe.close();
      }
      if (Date.now() >= deadline) break;
    }
    const message = lastError instanceof Error ? lastError.message : String(lastError ?? 'timed out');
    throw new Error(`cannot connect to etcd at ${options.endpoints.join(', ')}: ${message}`, {
      cause: lastError,
    });
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KVGetResult> {
    const revision = options.revision ?? 0;
    const response = await this.call(key, revision, () =>
      this.client.kv.range({ key: this.keys.encode(key), ...(revision > 0 ? { revision } : {}) }),
    );
    const kv = response.kvs[0];
    const result: KVGetResult = { revision: revision > 0 ? revision : Number(response.header.revision) };
    if (!kv) return result;
    const entry = this.keys.entry(kv);
    if (Number(kv.lease) !== 0 && revision === 0) {
      const ttl = await this.ttlOf(String(kv.lease));
      if (ttl !== undefined) entry.ttlSeconds = this.leases.reportedTtl(String(kv.lease), ttl);
    }
    result.entry = entry;
    return result;
  }

  async range(options: KVRangeOptions): Promise<KVRangeResult> {
    const revision = options.revision ?? 0;
    const base = this.keys.encode(options.key);
    let start = base;
    let rangeEnd: Buffer | undefined;
    if (options.prefix) {
      rangeEnd = prefixRangeEndBytes(base);
      if (options.startKey !== undefined && options.startKey > options.key)
        start = this.keys.encode(options.startKey);
    } else if (options.startKey !== undefined && options.startKey > options.key) {
      // An exact key before the start key: nothing to read, but still validate the revision.
      const response = await this.call(options.key, revision, () =>
        this.client.kv.range({ key: base, count_only: true, ...(revision > 0 ? { revision } : {}) }),
      );
      return {
        entries: [],
        more: false,
        count: 0,
        revision: revision > 0 ? revision : Number(response.header.revision),
      };
    }
    const limit = options.limit ?? 0;
    const response = await this.call(options.key, revision, () =>
      this.client.kv.range({
        key: start,
        ...(rangeEnd ? { range_end: rangeEnd } : {}),
        ...(revision > 0 ? { revision } : {}),
        ...(limit > 0 && !options.countOnly ? { limit } : {}),
        ...(options.countOnly ? { count_only: true } : {}),
      }),
    );
    const entries = options.countOnly ? [] : response.kvs.map((kv) => this.keys.entry(kv));
    return {
      entries,
      more: options.countOnly ? false : response.more,
      count: Number(response.count),
      revision: revision > 0 ? revision : Number(response.header.revision),
    };
  }

  async create(key: string, value: Uint8Array, options: KVWriteOptions = {}): Promise<KVWriteResult> {
    const etcdKey = this.keys.encode(key);
    const lease =
      options.ttlSeconds !== undefined && options.ttlSeconds > 0
        ? await this.leaseFor(key, options.ttlSeconds)
        : undefined;
    const response = await this.txn(key, options.condition, {
      compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: 0 }],
      success: [{ request_put: { key: etcdKey, value: asBuffer(value), ...(lease ? { lease } : {}) } }],
      failure: [{ request_range: { key: etcdKey } }],
    });
    return this.writeResult(response, options.condition);
  }

  async update(
    key: string,
    value: Uint8Array,
    expectedModRevision: number,
    options: KVWriteOptions = {},
  ): Promise<KVWriteResult> {
    const etcdKey = this.keys.encode(key);
    const lease =
      options.ttlSeconds !== undefined && options.ttlSeconds > 0
        ? await this.leaseFor(key, options.ttlSeconds)
        : undefined;
    const response = await this.txn(key, options.condition, {
      compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
      success: [{ request_put: { key: etcdKey, value: asBuffer(value), ...(lease ? { lease } : {}) } }],
      failure: [{ request_range: { key: etcdKey } }],
    });
    return this.writeResult(response, options.condition);
  }

  async delete(
    key: string,
    expectedModRevision: number,
    options: KVConditionOptions = {},
  ): Promise<KVWriteResult> {
    const etcdKey = this.keys.encode(key);
    const response = await this.txn(key, options.condition, {
      compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
      success: [{ request_delete_range: { key: etcdKey, prev_kv: true } }],
      failure: [{ request_range: { key: etcdKey } }],
    });
    if (!response.succeeded) return this.writeResult(response, options.condition);
    const previousKv = response.responses[0]?.response_delete_range?.prev_kvs?.[0];
    const revision = Number(response.header.revision);
    return previousKv
      ? { succeeded: true, revision, previous: this.keys.entry(previousKv) }
      : { succeeded: true, revision };
  }

  watch(options: KVWatchOptions, listener: KVWatchListener): KVWatch {
    const key = this.keys.encode(options.key);
    const range: WatchRange = options.prefix ? { key, rangeEnd: prefixRangeEndBytes(key) } : { key };
    return this.hub.watch(range, options.startRevision, options.progressNotify ?? false, listener, options.previous ?? true);
  }

  async currentRevision(): Promise<number> {
    const response = await this.call('', 0, () =>
      this.client.kv.range({ key: this.compactKey, count_only: true }),
    );
    return Number(response.header.revision);
  }

  /**
   * Compacts etcd to `revision` (physically, so that it is done when this resolves). A revision at or
   * below the compacted one is a no-op; a future revision fails with FutureRevisionError.
   */
  async compact(revision: number): Promise<void> {
    if (revision <= 0) return;
    try {
      await this.client.kv.compact({ revision, physical: true });
    } catch (error) {
      if (isCompactedError(error)) return;
      throw await this.translate(error, '', revision);
    }
    this.noteCompacted(revision);
  }

  async compactedRevision(): Promise<number> {
    const response = await this.call(COMPACT_REVISION_KEY, 0, () =>
      this.client.kv.range({ key: this.compactKey }),
    );
    const stored = Number(response.kvs[0]?.value.toString('utf8') ?? '0');
    if (Number.isSafeInteger(stored)) this.noteCompacted(stored);
    return this.knownCompactedRevision;
  }

  /**
   * One step of Kubernetes' compactor protocol: if {@link COMPACT_REVISION_KEY}'s version is
   * `expectedVersion`, store `revision` in it (bumping the version); otherwise report the current version.
   */
  async swapCompactRevision(expectedVersion: number, revision: number): Promise<CompactRevisionSwap> {
    const response = await this.call(COMPACT_REVISION_KEY, 0, () =>
      this.client.kv.txn({
        compare: [{ key: this.compactKey, target: 'Version', result: 'Equal', version: expectedVersion }],
        success: [{ request_put: { key: this.compactKey, value: Buffer.from(String(revision)) } }],
        failure: [{ request_range: { key: this.compactKey } }],
      }),
    );
    const currentRevision = Number(response.header.revision);
    if (response.succeeded) return { succeeded: true, version: expectedVersion + 1, currentRevision };
    const kv = response.responses[0]?.response_range?.kvs?.[0];
    return { succeeded: false, version: kv ? Number(kv.version) : 0, currentRevision };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.close();
    this.client.close();
  }

  private noteCompacted(revision: number): void {
    if (revision > this.knownCompactedRevision) this.knownCompactedRevision = revision;
  }

  private async leaseFor(key: string, ttlSeconds: number): Promise<string> {
    try {
      return await this.leases.leaseFor(ttlSeconds);
    } catch (error) {
      throw await this.translate(error, key, 0);
    }
  }

  private async ttlOf(lease: string): Promise<number | undefined> {
    try {
      const response = await this.client.leaseClient.leaseTimeToLive({ ID: lease, keys: false });
      const ttl = Number(response.TTL);
      return ttl >= 0 ? ttl : undefined;
    } catch {
      return undefined; // best effort
    }
  }

  private async txn(
    key: string,
    condition: KVWriteCondition | undefined,
    request: { compare: ICompare[]; success: IRequestOp[]; failure: IRequestOp[] },
  ): Promise<ITxnResponse> {
    if (condition) {
      const conditionKey = this.keys.encode(condition.key);
      request.compare.push({
        key: conditionKey,
        target: 'Value',
        result: 'Equal',
        value: Buffer.from(condition.value, 'utf8'),
      });
      request.failure.push({ request_range: { key: conditionKey } });
    }
    return this.call(key, 0, () => this.client.kv.txn(request));
  }

  private writeResult(response: ITxnResponse, condition: KVWriteCondition | undefined): KVWriteResult {
    const revision = Number(response.header.revision);
    if (response.succeeded) return { succeeded: true, revision };
    const currentKv = response.responses[0]?.response_range?.kvs?.[0];
    const current: KVEntry | undefined = currentKv ? this.keys.entry(currentKv) : undefined;
    let reason: 'conflict' | 'condition' = 'conflict';
    if (condition) {
      const conditionKv = response.responses[1]?.response_range?.kvs?.[0];
      const actual = conditionKv ? (conditionKv.value ?? EMPTY) : undefined;
      if (
        actual === undefined ||
        Buffer.compare(asBuffer(actual), Buffer.from(condition.value, 'utf8')) !== 0
      ) {
        reason = 'condition';
      }
    }
    return current ? { succeeded: false, reason, current, revision } : { succeeded: false, reason, revision };
  }

  private async call<T>(key: string, requestedRevision: number, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw await this.translate(error, key, requestedRevision);
    }
  }

  private translate(error: unknown, key: string, requestedRevision: number): Promise<unknown> {
    return translateError(error, {
      key,
      requestedRevision,
      compactedRevision: () => this.compactedRevision(),
      currentRevision: () => this.currentRevision(),
    });
  }
}
