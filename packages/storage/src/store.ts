import { KapiError, StatusError, type KubeObject } from '@kapi/apimachinery';
import { identityTransformer, jsonCodec, type Codec, type ValueTransformer } from './codec.js';
import type {
  Closer,
  Compactor,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  Interface,
  ListOptions,
  ListResult,
  ProgressRequester,
  RevisionReader,
  Watch,
} from './interfaces.js';
import type { KVBackend, KVWriteResult } from './kv-backend.js';
import { StorageError } from './storage-error.js';
import { StoreCodec, parseResourceVersion } from './store-codec.js';
import { storeGetList } from './store-list.js';
import { storeDelete, storeGuaranteedUpdate } from './store-update.js';
import { storeWatch } from './store-watch.js';
import { rememberStoredEncoding } from './stored-encoding.js';

/** Default limit of an encoded (and transformed) object: 1.5 MiB, like etcd's request limit. */
export const defaultMaxObjectSize = 1572864;

/** Options of {@link Store}. */
export interface StoreOptions {
  /** The revisioned key-value backend. One backend can back many stores. */
  kv: KVBackend;
  /** Object encoding (default {@link jsonCodec}). */
  codec?: Codec | undefined;
  /** Encryption at rest (default {@link identityTransformer}). */
  transformer?: ValueTransformer | undefined;
  /** Largest stored value in bytes, after transformation (default 1.5 MiB). */
  maxObjectSize?: number | undefined;
  /** Close the backend when the store closes. */
  ownsBackend?: boolean | undefined;
}

/** What the verb implementations share. */
export interface StoreContext {
  readonly kv: KVBackend;
  readonly codec: StoreCodec;
}

/**
 * The generic storage {@link Interface} over a {@link KVBackend}, with the semantics of
 * k8s.io/apiserver's etcd3 store: encoding and transformers, resourceVersion rules, selectors and
 * paging with continue tokens, guaranteedUpdate with no-op detection, and filtered watches.
 */
export class Store implements Interface, ProgressRequester, RevisionReader, Compactor, Closer, StoreContext {
  readonly kv: KVBackend;
  readonly codec: StoreCodec;
  private readonly ownsBackend: boolean;

  constructor(options: StoreOptions) {
    this.kv = options.kv;
    this.codec = new StoreCodec(
      options.codec ?? jsonCodec,
      options.transformer ?? identityTransformer,
      options.maxObjectSize ?? defaultMaxObjectSize,
    );
    this.ownsBackend = options.ownsBackend ?? false;
  }

  async create(key: string, object: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    if (object.metadata?.resourceVersion) {
      throw new KapiError('resourceVersion should not be set on objects to be created');
    }
    // Asked when encoding: the encoding version may change (storage-version voting) while the write waits.
    const verbatim = this.codec.codec.decodesVerbatim?.() ?? false;
    const encoded = this.codec.encode(key, object, options.handOver ? (options.shareResult ? 'share' : 'copy') : undefined);
    this.codec.written(key, encoded);
    let result: KVWriteResult;
    try {
      result = await this.kv.create(
        key,
        encoded.stored,
        options.ttlSeconds !== undefined && options.ttlSeconds > 0 ? { ttlSeconds: options.ttlSeconds } : undefined,
      );
    } finally {
      this.codec.writeReturned(key, encoded);
    }
    if (!result.succeeded) throw StorageError.keyExists(key, 0);
    const created = this.codec.decodeWritten(key, encoded, result.revision);
    if (verbatim) rememberStoredEncoding(created, encoded.data);
    return created;
  }

  async get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    const minimum = parseResourceVersion(options.resourceVersion);
    const result = await this.kv.get(key);
    if (minimum > result.revision) throw StatusError.tooLargeResourceVersion(minimum, result.revision);
    if (!result.entry) {
      if (options.ignoreNotFound) return undefined;
      throw StorageError.keyNotFound(key, 0);
    }
    return this.codec.decode(result.entry).object;
  }

  getList(key: string, options: ListOptions = {}): Promise<ListResult> {
    return storeGetList(this, key, options);
  }

  watch(key: string, options: ListOptions = {}): Promise<Watch> {
    return storeWatch(this, key, options);
  }

  guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
    return storeGuaranteedUpdate(this, key, options);
  }

  delete(key: string, options: DeleteOptions = {}): Promise<KubeObject> {
    return storeDelete(this, key, options);
  }

  async count(key: string): Promise<number> {
    const prefix = key.endsWith('/') ? key : `${key}/`;
    const result = await this.kv.range({ key: prefix, prefix: true, countOnly: true });
    return result.count;
  }

  async requestWatchProgress(key?: string): Promise<void> {
    await this.kv.requestProgress?.(key);
  }

  /** Whether the backend can answer progress requests (etcd 3.4.23 cannot: consistent reads then go to storage). */
  get watchProgressSupported(): boolean {
    return typeof this.kv.requestProgress === 'function';
  }

  getCurrentResourceVersion(): Promise<number> {
    return this.kv.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.kv.compact(revision);
  }

  compactRevision(): Promise<number> {
    return this.kv.compactedRevision();
  }

  async close(): Promise<void> {
    if (this.ownsBackend) await this.kv.close();
  }
}
