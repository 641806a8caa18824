import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '@kapi/apimachinery';
import { applyWarnings, wantsPretty, writeObject } from './response-writer.js';
import { sharedSerialization } from './shared-serialization.js';

/** Bytes gathered into one socket write. */
const chunkBytes = 64 * 1024;
/** Bytes a response may hold unsent before the writer waits for it to drain. */
const bufferedBytes = 1024 * 1024;
/** `,` between array elements. */
export const comma = Buffer.from(',');
const COMMA = 0x2c;
const close = Buffer.from(']}');

/** An item's compact JSON, made once per object and shared with GETs and watch events of that object. */
export function objectJson(object: unknown): Buffer {
  if (typeof object === 'object' && object !== null)
    return sharedSerialization(object, 'json', () => JSON.stringify(object));
  return Buffer.from(JSON.stringify(object) ?? 'null');
}

/** Resolves once `response` can take more data (or has closed). */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/**
 * Writes a `<Kind>List` as compact JSON without building it as one string: the envelope
 * (`apiVersion`, `kind`, `metadata`) is encoded on its own and the items' cached bytes are spliced in
 * after it (see {@link writeJsonParts}). Items served from the watch cache are encoded once per object
 * version for every LIST, GET and watch that sends them. The body is JSON-equal to
 * `JSON.stringify(list)` (`items` comes last). Pretty output goes through {@link writeObject}.
 */
export async function writeList(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  list: KubeObject,
): Promise<void> {
  if (response.headersSent || wantsPretty(request)) return writeObject(request, response, code, list);
  const { items, ...envelope } = list;
  const parts = [openArray(envelope, 'items')];
  if (Array.isArray(items)) {
    items.forEach((item, index) => {
      if (index > 0) parts.push(comma);
      parts.push(objectJson(item));
    });
  }
  parts.push(close);
  return writeJsonParts(request, response, code, parts);
}

/** `envelope` as JSON left open at the start of its last field, the array `field`: `{...,"items":[`. */
export function openArray(envelope: Record<string, unknown>, field: string): Buffer {
  const head = JSON.stringify(envelope);
  return Buffer.from(head === '{}' ? `{"${field}":[` : `${head.slice(0, -1)},"${field}":[`);
}

/**
 * Writes a JSON body made of `parts` (Buffers, mostly shared cached encodings) with its
 * `Content-Length`, without joining them into one: small parts are copied into 64 KB chunks and large
 * ones written as they are, waiting for a drain only once 1 MB is unsent (a wait per chunk halved the
 * throughput). A chunk is reused once its write completed, so a response holds about 1 MB of copies at
 * any time, whatever its size, and leaves no garbage of the size of the body.
 */
export async function writeJsonParts(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  parts: readonly Buffer[],
): Promise<void> {
  let length = 0;
  for (const part of parts) length += part.length;
  applyWarnings(request, response);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': length,
    'Cache-Control': 'no-cache, private',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const free: Buffer[] = [];
  let chunk: Buffer = Buffer.allocUnsafe(Math.min(chunkBytes, length));
  let used = 0;
  // Corked: the headers and the chunks go out together in one write (one TLS record run, one system call)
  // up to 1 MB, not one write each; the socket is uncorked to drain past that, and by end().
  response.cork();
  const send = async (data: Buffer, done?: () => void) => {
    response.write(data, done);
    if (response.writableLength >= bufferedBytes && !response.destroyed) {
      response.uncork();
      if (response.writableLength >= bufferedBytes && !response.destroyed) await drained(response);
      response.cork();
    }
  };
  const flush = async () => {
    if (used === 0) return;
    const written = chunk;
    const data = chunk.subarray(0, used);
    chunk = free.pop() ?? Buffer.allocUnsafe(chunkBytes);
    used = 0;
    await send(data, () => free.push(written));
  };
  for (const part of parts) {
    if (response.destroyed) return;
    if (part.length >= chunkBytes / 2) {
      await flush();
      await send(part);
      continue;
    }
    if (used + part.length > chunk.length) await flush();
    // The comma between items: a byte, not a copy call.
    if (part === comma) chunk[used] = COMMA;
    else chunk.set(part, used);
    used += part.length;
  }
  response.end(chunk.subarray(0, used));
}
