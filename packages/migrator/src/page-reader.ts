import { errorFromResponse } from '@kapi/client';
import type { ObjectTransport } from './object-transport.js';

/** One listed object as the migrator writes it back: its identity and its bytes as listed. */
export interface PageItem {
  name: string;
  namespace: string | undefined;
  uid: string | undefined;
  resourceVersion: string;
  /**
   * The item's JSON as the server listed it (with `apiVersion` and `kind` added when the item lacks them);
   * of a metadata-only page, the item's PartialObjectMetadata.
   */
  body: Buffer;
}

/** A listed page: its items (each read from the page's bytes when asked for) and the list metadata the migrator reads. */
export interface Page {
  /** How many items the page holds. */
  size: number;
  /** Item `index` (0 <= index < size), parsed from its bytes now: the caller holds it only while writing it. */
  item(index: number): PageItem;
  continue: string | undefined;
  remainingItemCount: number | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where the top-level `metadata` object and each element of the top-level `items` array lie in a list's JSON. */
interface ListLayout {
  metadata: [number, number] | undefined;
  /** Start and end (exclusive) offsets of item i at 2i and 2i + 1. */
  items: number[];
}

/**
 * Finds the byte ranges of a JSON list's `metadata` and `items` elements without building objects: one pass
 * over the bytes that follows strings (with their escapes) and nesting. Any key order is accepted.
 */
export function scanList(bytes: Uint8Array): ListLayout {
  const layout: ListLayout = { metadata: undefined, items: [] };
  let depth = 0;
  let key: string | undefined;
  let expectKey = false;
  let inItems = false;
  let start = -1;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      let end = index + 1;
      while (end < bytes.length && bytes[end] !== QUOTE) end += bytes[end] === BACKSLASH ? 2 : 1;
      if (depth === 1 && expectKey) {
        key = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + index, end + 1 - index).toString('utf8')) as string;
        expectKey = false;
      }
      index = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (depth === 1 && byte === OPEN_BRACE && key === 'metadata') start = index;
      else if (depth === 1 && byte === OPEN_BRACKET && key === 'items') inItems = true;
      else if (depth === 2 && inItems && byte === OPEN_BRACE) start = index;
      depth++;
      if (depth === 1) expectKey = true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 2 && inItems && byte === CLOSE_BRACE) layout.items.push(start, index + 1);
      else if (depth === 1 && inItems) inItems = false;
      else if (depth === 1 && key === 'metadata' && byte === CLOSE_BRACE) layout.metadata = [start, index + 1];
    } else if (byte === COMMA && depth === 1) {
      expectKey = true;
    }
  }
  return layout;
}

interface ItemHead {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** A listed item: its identity, and its bytes cut from the page (typed when they are not) when first read. */
class ListedItem implements PageItem {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly uid: string | undefined;
  readonly resourceVersion: string;
  #head: ItemHead;
  #page: Buffer;
  #start: number;
  #end: number;
  #typeMeta: { apiVersion: string; kind: string };
  #body: Buffer | undefined;

  constructor(head: ItemHead, page: Buffer, start: number, end: number, typeMeta: { apiVersion: string; kind: string }) {
    this.name = head.metadata?.name ?? '';
    this.namespace = head.metadata?.namespace;
    this.uid = head.metadata?.uid;
    this.resourceVersion = head.metadata?.resourceVersion ?? '0';
    this.#head = head;
    this.#page = page;
    this.#start = start;
    this.#end = end;
    this.#typeMeta = typeMeta;
  }

  get body(): Buffer {
    return (this.#body ??= this.#cut());
  }

  #cut(): Buffer {
    const [head, typeMeta, start, end] = [this.#head, this.#typeMeta, this.#start, this.#end];
    const missing = [
      ...(head.apiVersion === undefined ? [`"apiVersion":${JSON.stringify(typeMeta.apiVersion)}`] : []),
      ...(head.kind === undefined ? [`"kind":${JSON.stringify(typeMeta.kind)}`] : []),
    ];
    const item = this.#page.subarray(start, end);
    const empty = end - start === 2;
    return missing.length === 0 ? item : Buffer.concat([Buffer.from(`{${missing.join(',')}${empty ? '' : ','}`), item.subarray(1)]);
  }
}

/**
 * An item of the page: its identity read from its own bytes, which become the body written back (typed
 * when they are not). The body is cut from the page when first read (a PATCH of the identity never is).
 */
export function pageItem(bytes: Buffer, start: number, end: number, typeMeta: { apiVersion: string; kind: string }): PageItem {
  return new ListedItem(JSON.parse(bytes.toString('utf8', start, end)) as ItemHead, bytes, start, end, typeMeta);
}

/**
 * The Accept header of a metadata-only page (as client-go's metadata client asks): items are
 * PartialObjectMetadata, or whole objects from a server that does not offer that form.
 */
export const METADATA_PAGE_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * LISTs one page of `path` (`accept`: its Accept header, e.g. {@link METADATA_PAGE_ACCEPT}) and keeps it as the response's bytes (one buffer outside the JavaScript heap)
 * and the offsets of its items: the page is never held as parsed objects; an item is parsed on its own,
 * when asked for, only to read its name, namespace and resourceVersion. A non-2xx answer is thrown as a
 * StatusError.
 */
export async function readPage(
  transport: Pick<ObjectTransport, 'raw'>,
  path: string,
  query: { limit: number; continue?: string },
  typeMeta: { apiVersion: string; kind: string },
  accept?: string,
): Promise<Page> {
  const response = await transport.raw({ method: 'GET', path, query, ...(accept ? { accept } : {}) });
  if (response.statusCode < 200 || response.statusCode >= 300) throw errorFromResponse(response.statusCode, response.body);
  const bytes = response.body;
  const layout = scanList(bytes);
  const metadata = layout.metadata
    ? (JSON.parse(bytes.toString('utf8', layout.metadata[0], layout.metadata[1])) as { continue?: string; remainingItemCount?: number })
    : {};
  const offsets = Uint32Array.from(layout.items);
  return {
    size: offsets.length / 2,
    item: (index) => pageItem(bytes, offsets[2 * index] ?? 0, offsets[2 * index + 1] ?? 0, typeMeta),
    continue: metadata.continue || undefined,
    remainingItemCount: metadata.remainingItemCount,
  };
}
