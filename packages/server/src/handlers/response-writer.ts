import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext, requestTarget, requestWarnings, writeStatus } from '@kapi/filters';
import { stringify as toYaml } from 'yaml';
import { sharedSerialization } from './shared-serialization.js';

/** Formats one `Warning` header value: `299 - "<text>"` with `"` and `\` escaped. */
export function warningHeader(text: string): string {
  return `299 - "${text.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/** Records a warning for the response (de-duplicated). */
export function addWarning(request: IncomingMessage, text: string): void {
  const warnings = requestContext(request).warnings;
  if (!warnings.includes(text)) warnings.push(text);
}

/** Sets the `Warning` header from the request's warnings (before the head is written). */
export function applyWarnings(request: IncomingMessage, response: ServerResponse): void {
  const warnings = requestWarnings(request);
  if (warnings.length > 0 && !response.headersSent)
    response.setHeader('Warning', [...new Set(warnings)].map(warningHeader));
}

/** Upstream pretty-prints for `?pretty=true|1` and for curl/wget user agents. */
export function wantsPretty(request: IncomingMessage): boolean {
  const query = requestTarget(request).query.get('pretty');
  if (query !== null) return query === 'true' || query === '1';
  const agent = request.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('kube-openapi');
}

/**
 * Writes a JSON (or YAML) body with the request's warnings. `json`: true when the body is a read-only
 * object that may be served again (from the watch cache), so its compact JSON is made once and reused;
 * or the body's compact JSON, already made (a write's stored bytes).
 */
export function writeObject(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  body: unknown,
  format: 'json' | 'yaml' = 'json',
  json: boolean | Buffer = false,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  applyWarnings(request, response);
  let data: Buffer;
  if (format === 'yaml') data = Buffer.from(toYaml(body));
  else if (wantsPretty(request)) data = Buffer.from(`${JSON.stringify(body, null, 2)}\n`);
  else if (Buffer.isBuffer(json)) data = json;
  else if (json && typeof body === 'object' && body !== null)
    data = sharedSerialization(body, 'json', () => JSON.stringify(body));
  else data = Buffer.from(JSON.stringify(body));
  const type = format === 'yaml' ? 'application/yaml' : 'application/json';
  response.writeHead(code, {
    'Content-Type': type,
    'Content-Length': data.length,
    'Cache-Control': 'no-cache, private',
  });
  response.end(request.method === 'HEAD' ? undefined : data);
}

/** Writes anything thrown as a Status, with the request's warnings. */
export function writeError(request: IncomingMessage, response: ServerResponse, error: unknown): void {
  applyWarnings(request, response);
  writeStatus(response, error);
}
