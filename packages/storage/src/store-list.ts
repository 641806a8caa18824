import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';
import { EventLoopSlice } from './event-loop-slice.js';
import { predicateHasSelectors, predicateMatches, type ListOptions, type ListResult } from './interfaces.js';
import type { KVRangeResult } from './kv-backend.js';
import { isFutureRevision, isRevisionCompacted, messageOf, parseResourceVersion } from './store-codec.js';
import type { StoreContext } from './store.js';

/** Largest page read from the backend when selectors filter items out (etcd3 store's maxLimit). */
const maxPageSize = 10000;

const listExpired = 'The resourceVersion for the provided list is too old.';
const continueExpired =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
const inconsistentContinue =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** `Store.getList`: etcd3 store GetList semantics (resourceVersion rules, selectors, paging). */
export async function storeGetList(store: StoreContext, key: string, options: ListOptions): Promise<ListResult> {
  const recursive = options.recursive ?? false;
  const keyPrefix = recursive && !key.endsWith('/') ? `${key}/` : key;
  const predicate = options.predicate ?? {};
  const limit = predicate.limit !== undefined && predicate.limit > 0 ? Math.floor(predicate.limit) : 0;
  const paging = limit > 0;
  const resourceVersion = options.resourceVersion ?? '';
  const minimum = parseResourceVersion(resourceVersion);
  const continuing = recursive && Boolean(predicate.continue);

  let withRevision = 0;
  let startKey: string | undefined;
  if (continuing) {
    let decoded;
    try {
      decoded = decodeContinueToken(predicate.continue as string, keyPrefix);
    } catch (error) {
      throw StatusError.badRequest(`invalid continue token: ${messageOf(error)}`);
    }
    if (resourceVersion !== '' && resourceVersion !== '0') {
      throw StatusError.badRequest('specifying resource version is not allowed when using continue');
    }
    if (decoded.resourceVersion > 0) withRevision = decoded.resourceVersion;
    startKey = decoded.key;
  } else if (resourceVersion !== '') {
    const match = options.resourceVersionMatch ?? '';
    if (match === 'Exact') withRevision = minimum;
    else if (match === '' && paging && minimum > 0) withRevision = minimum;
    else if (match !== 'NotOlderThan' && match !== '') {
      throw StatusError.badRequest(`unknown ResourceVersionMatch value: ${String(match)}`);
    }
  }

  const hasSelectors = predicateHasSelectors(predicate);
  const items: KubeObject[] = [];
  let pageSize = limit;
  let lastKey: string | undefined;
  let hasMore = false;
  let response: KVRangeResult;
  // Decoding (and decrypting) a page is synchronous work: other requests get turns between slices of it.
  const slice = new EventLoopSlice();
  for (;;) {
    try {
      response = await store.kv.range({
        key: keyPrefix,
        prefix: recursive,
        ...(startKey !== undefined ? { startKey } : {}),
        ...(withRevision > 0 ? { revision: withRevision } : {}),
        ...(paging ? { limit: pageSize } : {}),
      });
    } catch (error) {
      throw interpretListError(error, continuing, startKey, keyPrefix);
    }
    if (resourceVersion !== '' && minimum > response.revision && withRevision === 0) {
      throw StatusError.tooLargeResourceVersion(minimum, response.revision);
    }
    if (withRevision === 0) withRevision = response.revision;
    hasMore = response.more;
    if (response.entries.length === 0 && response.more) {
      throw new Error('no results were found, but the backend indicated there were more values remaining');
    }
    for (const entry of response.entries) {
      if (paging && items.length >= limit) {
        hasMore = true;
        break;
      }
      lastKey = entry.key;
      const object = store.codec.decode(entry).object;
      if (predicateMatches(predicate, object)) items.push(object);
      if (slice.due()) await slice.yield();
    }
    if (!hasMore || !paging || items.length >= limit) break;
    pageSize = Math.min(pageSize * 2, maxPageSize);
    startKey = `${lastKey}\u0000`;
  }

  const result: ListResult = { items, resourceVersion: String(withRevision) };
  if (hasMore && lastKey !== undefined) {
    result.continue = encodeContinueToken(`${lastKey}\u0000`, keyPrefix, withRevision);
    if (!hasSelectors) result.remainingItemCount = Math.max(0, response.count - limit);
  }
  return result;
}

function interpretListError(error: unknown, continuing: boolean, continueKey: string | undefined, keyPrefix: string): unknown {
  if (isRevisionCompacted(error)) {
    if (!continuing || continueKey === undefined) return StatusError.expired(listExpired);
    let token: string;
    try {
      token = encodeContinueToken(continueKey, keyPrefix, -1);
    } catch {
      return StatusError.expired(continueExpired);
    }
    const expired = StatusError.expired(inconsistentContinue);
    expired.status.metadata.continue = token;
    return expired;
  }
  if (isFutureRevision(error)) {
    return StatusError.tooLargeResourceVersion(error.requestedRevision, error.currentRevision);
  }
  return error;
}
