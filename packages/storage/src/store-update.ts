import { sameJson, type KubeObject } from '@kapi/apimachinery';
import type { DeleteOptions, GuaranteedUpdateOptions, Preconditions, UpdateResult } from './interfaces.js';
import type { KVEntry, KVWriteOptions, KVWriteResult } from './kv-backend.js';
import { deepCopy } from './deep-copy.js';
import { decodedStale } from './stale-objects.js';
import { rememberStoredEncoding } from './stored-encoding.js';
import { StorageError } from './storage-error.js';
import { bytesEqual, parseResourceVersion } from './store-codec.js';
import type { StoreContext } from './store.js';

const EMPTY = new Uint8Array(0);

/** What guaranteedUpdate and delete know about the stored object. */
interface ObjectState {
  object: KubeObject;
  /** Plain codec bytes, compared with the new encoding to skip no-op writes. */
  data: Uint8Array;
  stale: boolean;
  /** modRevision; 0 when the key does not exist. */
  revision: number;
  exists: boolean;
  ttlSeconds?: number | undefined;
}

function stateFromEntry(store: StoreContext, key: string, entry: KVEntry | undefined, ignoreNotFound: boolean): ObjectState {
  if (entry) {
    const decoded = store.codec.decode(entry);
    return {
      object: decoded.object,
      data: decoded.data,
      stale: decoded.stale,
      revision: entry.modRevision,
      exists: true,
      ttlSeconds: entry.ttlSeconds,
    };
  }
  if (!ignoreNotFound) throw StorageError.keyNotFound(key, 0);
  return { object: { metadata: {} }, data: EMPTY, stale: false, revision: 0, exists: false };
}

async function fetchState(store: StoreContext, key: string, ignoreNotFound: boolean): Promise<ObjectState> {
  const result = await store.kv.get(key);
  return stateFromEntry(store, key, result.entry, ignoreNotFound);
}

/**
 * State from a (possibly outdated) cached object: its resourceVersion and its encoding; stale when it was
 * decoded from a stale value (then written back, conditioned on that resourceVersion, without a read).
 * A stale object is not encoded: its bytes only serve the no-op check, which a stale value skips.
 */
function stateFromObject(store: StoreContext, object: KubeObject): ObjectState {
  let revision = 0;
  try {
    revision = parseResourceVersion(object.metadata?.resourceVersion);
  } catch {
    revision = 0;
  }
  const stale = decodedStale(object);
  return { object, data: stale ? EMPTY : store.codec.encodePlain(object), stale, revision, exists: true };
}

const notMetadata: ReadonlySet<string> = new Set(['metadata']);
const notResourceVersion: ReadonlySet<string> = new Set(['resourceVersion']);

/**
 * Whether an update left the stored object as it was (its resourceVersion aside). A state read from the
 * cache has no bytes: the objects are compared as JSON first, since equal JSON encodes the same, and the
 * old object is encoded only when they differ (a codec may still write both the same).
 */
function rewritesUnchanged(store: StoreContext, object: KubeObject, state: ObjectState, data: Uint8Array): boolean {
  if (state.data.length > 0) return bytesEqual(data, state.data);
  if (sameJson(object, state.object, notMetadata) && sameJson(object.metadata ?? {}, state.object.metadata ?? {}, notResourceVersion)) return true;
  return bytesEqual(data, store.codec.encodePlain(state.object));
}

/** storage.Preconditions.Check: UID first, then resourceVersion, with the upstream messages. */
export function checkPreconditions(key: string, preconditions: Preconditions | undefined, object: KubeObject): StorageError | undefined {
  if (!preconditions) return undefined;
  const meta = object.metadata ?? {};
  if (preconditions.uid !== undefined && preconditions.uid !== (meta.uid ?? '')) {
    return StorageError.invalidObject(
      key,
      0,
      `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid ?? ''}`,
    );
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== (meta.resourceVersion ?? '')) {
    return StorageError.invalidObject(
      key,
      0,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
  return undefined;
}

function normalizeResult(result: UpdateResult): { object: KubeObject; ttlSeconds?: number | undefined } {
  if ('object' in result && typeof result.object === 'object' && result.object !== null && !('metadata' in result && typeof result.metadata === 'object')) {
    const wrapped = result as { object: KubeObject; ttlSeconds?: number };
    return { object: wrapped.object, ttlSeconds: wrapped.ttlSeconds };
  }
  return { object: result as KubeObject };
}

/** `Store.guaranteedUpdate`: the etcd3 store algorithm (reference 3.7). */
export async function storeGuaranteedUpdate(store: StoreContext, key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
  const ignoreNotFound = options.ignoreNotFound ?? false;
  let state = options.cachedExistingObject
    ? stateFromObject(store, options.cachedExistingObject)
    : await fetchState(store, key, ignoreNotFound);
  let current = !options.cachedExistingObject;
  const refetch = async (): Promise<void> => {
    state = await fetchState(store, key, ignoreNotFound);
    current = true;
  };
  for (;;) {
    const failure = checkPreconditions(key, options.preconditions, state.object);
    if (failure) {
      if (!current) {
        await refetch();
        continue;
      }
      throw failure;
    }
    let outcome: UpdateResult;
    try {
      const meta = state.ttlSeconds !== undefined ? { resourceVersion: state.revision, ttlSeconds: state.ttlSeconds } : { resourceVersion: state.revision };
      outcome = await options.tryUpdate(deepCopy(state.object), meta);
    } catch (error) {
      if (!current) {
        await refetch();
        continue;
      }
      throw error;
    }
    const { object, ttlSeconds } = normalizeResult(outcome);
    // Asked when encoding, as create does: the encoding version may change while the write waits.
    const verbatim = store.codec.codec.decodesVerbatim?.() ?? false;
    const encoded = store.codec.encode(key, object);
    if (state.exists && !state.stale && bytesEqual(encoded.data, state.data)) {
      // Only trust a no-op against the stored bytes when they were just read. When the fresh read is
      // the same revision with the same bytes (and no TTL, which the cached copy did not show tryUpdate),
      // the update computed from the cache stands: return if the stored bytes are current, else write it
      // (stale encoding or key) without running tryUpdate again.
      // A value still at the cached revision that the transformer reads as stale from its prefix alone (an
      // old encryption key) is rewritten as computed, without decrypting it to compare.
      if (!current) {
        const cachedRevision = state.revision;
        const { entry } = await store.kv.get(key);
        current = true;
        if (entry && entry.modRevision === cachedRevision && entry.ttlSeconds === undefined && store.codec.readsStale(entry)) {
          state.stale = true;
        } else {
          state = stateFromEntry(store, key, entry, ignoreNotFound);
          const same = state.revision === cachedRevision && state.ttlSeconds === undefined && bytesEqual(encoded.data, state.data);
          if (!same) continue;
        }
      }
      if (!state.stale) return state.object;
    }
    let writeOptions: KVWriteOptions | undefined = ttlSeconds !== undefined && ttlSeconds > 0 ? { ttlSeconds } : undefined;
    // A stale value rewritten unchanged (what a storage migration does) may wait to commit with other writes.
    if (state.stale && rewritesUnchanged(store, object, state, encoded.data)) {
      writeOptions = { ...writeOptions, deferrable: true };
    }
    // Before the write: its watch event may be delivered before the write's answer.
    store.codec.written(key, encoded);
    let result: KVWriteResult;
    try {
      result = state.exists
        ? await store.kv.update(key, encoded.stored, state.revision, writeOptions)
        : await store.kv.create(key, encoded.stored, writeOptions);
    } finally {
      store.codec.writeReturned(key, encoded);
    }
    if (!result.succeeded) {
      state = stateFromEntry(store, key, result.current, ignoreNotFound);
      current = true;
      continue;
    }
    const updated = store.codec.decodeWritten(key, encoded, result.revision);
    // The response of the write can reuse the bytes written (see storedEncodingOf).
    if (verbatim) rememberStoredEncoding(updated, encoded.data);
    return updated;
  }
}

/** `Store.delete`: conditional delete with preconditions and validation, retried on conflict. */
export async function storeDelete(store: StoreContext, key: string, options: DeleteOptions): Promise<KubeObject> {
  let state = options.cachedExistingObject
    ? stateFromObject(store, options.cachedExistingObject)
    : await fetchState(store, key, false);
  let current = !options.cachedExistingObject;
  for (;;) {
    const failure = checkPreconditions(key, options.preconditions, state.object);
    if (failure) {
      if (!current) {
        state = await fetchState(store, key, false);
        current = true;
        continue;
      }
      throw failure;
    }
    if (options.validateDeletion) {
      try {
        await options.validateDeletion(state.object);
      } catch (error) {
        if (!current) {
          state = await fetchState(store, key, false);
          current = true;
          continue;
        }
        throw error;
      }
    }
    const result = await store.kv.delete(key, state.revision);
    if (!result.succeeded) {
      state = stateFromEntry(store, key, result.current, false);
      current = true;
      continue;
    }
    if (result.previous) return store.codec.decode(result.previous, result.revision).object;
    const object = deepCopy(state.object);
    object.metadata.resourceVersion = String(result.revision);
    return object;
  }
}
