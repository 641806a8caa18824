import type { IncomingMessage } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { parse as parseYaml } from 'yaml';

/** Largest request body the server reads (upstream `MaxRequestBodyBytes`, 3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** The media type of a request without parameters, lower-cased (`application/json`). */
export function mediaType(request: IncomingMessage): string {
  const header = request.headers['content-type'] ?? '';
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

function tooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${limit}`);
}

/** Reads the whole body, failing with 413 past `limit` bytes. */
export async function readBody(request: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
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

const objectMediaTypes = ['application/json', 'application/yaml'];

/**
 * Decodes a create/update body (JSON or YAML). An unknown media type is 415; unparsable bytes are 400
 * with the parser's error.
 */
export function decodeObjectBody(type: string, body: Buffer): unknown {
  const effective = type === '' || type === '*/*' ? 'application/json' : type;
  if (!objectMediaTypes.includes(effective)) {
    throw StatusError.unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${objectMediaTypes.join(', ')}`,
    );
  }
  const text = body.toString('utf8');
  if (effective === 'application/yaml') {
    try {
      return parseYaml(text, { version: '1.1' }) as unknown;
    } catch (error) {
      throw StatusError.badRequest(
        `error converting YAML to JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return parseJson(text, "couldn't get version/kind; json parse error: ");
}

/** Parses JSON, turning a syntax error into a 400 with `prefix` + the parser message. */
export function parseJson(text: string, prefix: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw StatusError.badRequest(`${prefix}${error instanceof Error ? error.message : String(error)}`);
  }
}
