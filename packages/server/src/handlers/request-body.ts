import type { IncomingMessage } from 'node:http';
import { PROTOBUF_MEDIA_TYPE, StatusError, type KubeObject } from '@kapi/apimachinery';
import { requestContext } from '@kapi/filters';
import { parse as parseYaml } from 'yaml';
import { parseMediaType } from './media-type.js';
import { nestsDeeperThan, tooDeepError, yamlNestsDeeperThan } from './nesting-depth.js';

/** Largest request body the server reads (upstream `MaxRequestBodyBytes`, 3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** The media type of a request without parameters, lower-cased (`application/json`). */
export function mediaType(request: IncomingMessage): string {
  const header = request.headers['content-type'] ?? '';
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * The media type of an object body (create, update, delete options), parsed as Go's
 * `mime.ParseMediaType`: `''` without a Content-Type, `undefined` when the header is malformed.
 */
export function objectMediaType(request: IncomingMessage): string | undefined {
  const header = request.headers['content-type'] ?? '';
  return header === '' ? '' : parseMediaType(header);
}

function tooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${limit}`);
}

/** Reads the whole body (or takes the one withRequestBody read ahead), failing with 413 past `limit` bytes. */
export async function readBody(request: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const early = requestContext(request).body;
  if (early) {
    if (early.length > limit) throw tooLarge(limit);
    return early;
  }
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Decodes `application/vnd.kubernetes.protobuf` bodies (e.g. apimachinery's `ProtobufRegistry`),
 * throwing a StatusError (400) on bytes it cannot decode.
 */
export interface ProtobufBodyDecoder {
  decode(bytes: Uint8Array): KubeObject;
}

const objectMediaTypes = ['application/json', 'application/yaml'];

/**
 * Decodes a create/update/delete-options body: JSON, YAML, and Kubernetes protobuf when a decoder is
 * given. An unknown or malformed (`undefined`) media type is 415; unparsable bytes are 400 with the
 * parser's error. `text`, when the caller already decoded the body as UTF-8, saves decoding it again.
 */
export function decodeObjectBody(
  type: string | undefined,
  body: Buffer,
  protobuf?: ProtobufBodyDecoder,
  text = body.toString('utf8'),
): unknown {
  const effective = type === '' || type === '*/*' ? 'application/json' : type;
  if (effective === PROTOBUF_MEDIA_TYPE && protobuf) return protobuf.decode(body);
  if (effective === undefined || !objectMediaTypes.includes(effective)) {
    const accepted = protobuf ? [...objectMediaTypes, PROTOBUF_MEDIA_TYPE] : objectMediaTypes;
    throw StatusError.unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  }
  if (effective === 'application/yaml') {
    const prefix = 'error converting YAML to JSON: ';
    if (yamlNestsDeeperThan(text)) throw tooDeepError(prefix);
    try {
      return parseYaml(text, yamlToJsonValue, { version: '1.1' }) as unknown;
    } catch (error) {
      throw StatusError.badRequest(`${prefix}${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return parseJson(text, "couldn't get version/kind; json parse error: ");
}

/**
 * A `yaml` reviver giving the JSON value sigs.k8s.io/yaml gives for YAML 1.1's non-JSON types:
 * `!!binary` as the string of its bytes, `!!set` as a map to null, `!!omap` as a map.
 */
export function yamlToJsonValue(_key: unknown, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Set) return Object.fromEntries([...value].map((item) => [String(item), null]));
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), item]));
  return value;
}

/**
 * Parses JSON, turning a syntax error into a 400 with `prefix` + the parser message, and a value nested
 * deeper than `MAX_BODY_NESTING_DEPTH` into a 400 too.
 */
export function parseJson(text: string, prefix: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw StatusError.badRequest(`${prefix}${error instanceof Error ? error.message : String(error)}`);
  }
  if (nestsDeeperThan(value)) throw tooDeepError(prefix);
  return value;
}

/** Parses a JSON, merge or strategic merge patch: 400 when it is not JSON or nests too deep. */
export function parsePatchBody(body: Buffer): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw StatusError.badRequest('invalid JSON patch');
  }
  if (nestsDeeperThan(patch)) throw tooDeepError('invalid JSON patch: ');
  return patch;
}
