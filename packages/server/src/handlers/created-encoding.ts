import type { KubeObject } from '@kapi/apimachinery';
import { storedEncodingOf } from '@kapi/storage';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const METADATA_KEY = Buffer.from('"metadata":');

/**
 * Lets a write's response reuse the bytes the store wrote instead of encoding the object again: the
 * store's JSON with `"resourceVersion"` added as the last field of `metadata`, which is byte for byte
 * what JSON.stringify makes of the object the store returned. Undefined when the store did not keep its
 * bytes (a codec that converts or defaults on read, a webhook-converted kind) or they have no top-level
 * metadata object.
 */
export function storedResponseJson(written: KubeObject): Buffer | undefined {
  const stored = storedEncodingOf(written);
  const resourceVersion = written.metadata.resourceVersion;
  if (!stored || resourceVersion === undefined) return undefined;
  return withResourceVersion(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength), resourceVersion);
}

/** `json` (compact JSON of an object) with `metadata.resourceVersion` appended to its metadata. */
export function withResourceVersion(json: Buffer, resourceVersion: string): Buffer | undefined {
  const close = metadataClose(json);
  if (close < 0) return undefined;
  const separator = json[close - 1] === OPEN_BRACE ? '' : ',';
  const field = `${separator}"resourceVersion":${JSON.stringify(resourceVersion)}`;
  const fieldLength = Buffer.byteLength(field);
  const spliced = Buffer.allocUnsafe(json.length + fieldLength);
  json.copy(spliced, 0, 0, close);
  spliced.write(field, close);
  json.copy(spliced, close + fieldLength, close);
  return spliced;
}

/**
 * The offset of the `}` closing the top-level `metadata` object of compact JSON, or -1. Works on the
 * UTF-8 bytes: the structural characters never occur inside a multi-byte sequence.
 */
function metadataClose(json: Buffer): number {
  let depth = 0;
  let inMetadata = false;
  for (let index = 0; index < json.length; index += 1) {
    const byte = json[index];
    if (byte === QUOTE) {
      const end = stringEnd(json, index);
      if (end < 0) return -1;
      if (depth === 1 && !inMetadata && json[end + 1] === 0x3a && isMetadataKey(json, index)) {
        if (json[end + 2] !== OPEN_BRACE) return -1;
        inMetadata = true;
      }
      index = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (inMetadata && depth === 1) return index;
    }
  }
  return -1;
}

function isMetadataKey(json: Buffer, start: number): boolean {
  return json.compare(METADATA_KEY, 0, METADATA_KEY.length, start, start + METADATA_KEY.length) === 0;
}

/** Strings longer than this are searched with Buffer.indexOf (one native call) past their first bytes. */
const shortString = 32;

/** The offset of the `"` closing the string that opens at `start`, or -1. */
function stringEnd(json: Buffer, start: number): number {
  // A loop first, not Buffer.indexOf: most strings here are short, and each indexOf is a native call;
  // a long one (a ConfigMap's data value) is searched natively, its escaping checked at each quote found.
  const scanned = Math.min(json.length, start + 1 + shortString);
  for (let index = start + 1; index < scanned; index += 1) {
    const byte = json[index];
    if (byte === BACKSLASH) index += 1;
    else if (byte === QUOTE) return index;
  }
  for (let index = json.indexOf(QUOTE, scanned); index >= 0; index = json.indexOf(QUOTE, index + 1)) {
    if (!isEscaped(json, index, start)) return index;
  }
  return -1;
}

/** Whether the quote at `index` is escaped: preceded by an odd run of backslashes (after `start`). */
function isEscaped(json: Buffer, index: number, start: number): boolean {
  let backslashes = 0;
  for (let before = index - 1; before > start && json[before] === BACKSLASH; before -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}
